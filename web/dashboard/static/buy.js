// The Buy credits page: reloads when a deposit appears, gains a confirmation, or is
// credited, so a buyer watching the page sees it move (the page is drawn on the server).
"use strict";

const POLL_MS = 4000;

function depositsSignature(view) {
  return view.deposits
    .map((d) => {
      const confirmations = d.state === "pending" && d.confirmations !== null ? String(d.confirmations) : "";
      return `${d.tx_hash}:${d.log_index}:${d.state}:${confirmations}`;
    })
    .join(",");
}

function watchDeposits() {
  const section = document.getElementById("deposits");
  // An older page of the history has no signature: only the newest page follows the chain.
  if (!section || section.dataset.signature === undefined) return;
  const shown = section.dataset.signature;
  const poll = async () => {
    if (document.visibilityState === "visible") {
      try {
        const r = await fetch("/dashboard/api/deposits", { credentials: "same-origin" });
        if (r.ok && depositsSignature(await r.json()) !== shown) {
          window.location.reload();
          return;
        }
      } catch (_) {
        // Offline for a moment: try again at the next poll.
      }
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}

document.addEventListener("DOMContentLoaded", watchDeposits);
