// Shoal dashboard: the copy button, the streaming playground and the images form.
// Served from this site only (the pages' Content-Security-Policy allows no inline script).
"use strict";

function setText(id, value) {
  const el = document.getElementById(id);
  if (el) el.textContent = String(value);
}

async function refreshBalance() {
  const r = await fetch("/dashboard/api/balance", { credentials: "same-origin" });
  if (!r.ok) return;
  const b = await r.json();
  setText("free-left", b.free_left);
  setText("credits", b.credits);
}

function setupCopy() {
  document.querySelectorAll("button[data-copy]").forEach((button) => {
    button.addEventListener("click", async () => {
      const input = document.getElementById(button.dataset.copy);
      input.select();
      try {
        await navigator.clipboard.writeText(input.value);
      } catch (_) {
        document.execCommand("copy");
      }
      button.textContent = "Copied";
    });
  });
}

// Reads an SSE body and calls onData with each `data:` payload and its event name.
async function readEvents(response, onData) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      for (const line of event.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        if (line.startsWith("data: ")) onData(line.slice(6), name);
      }
    }
  }
}

async function errorText(response) {
  try {
    const body = await response.json();
    return body.error.message;
  } catch (_) {
    return "request failed (" + response.status + ")";
  }
}

function setupPlayground() {
  const form = document.getElementById("chat");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = document.getElementById("answer");
    const send = document.getElementById("send");
    answer.textContent = "";
    setText("status", "Thinking…");
    send.disabled = true;
    const body = {
      model: document.getElementById("model").value,
      messages: [{ role: "user", content: document.getElementById("message").value }],
      // A bounded answer keeps the credit hold small (it is sized by max_tokens).
      max_tokens: 1024,
      stream: true,
      stream_options: { include_usage: true },
    };
    try {
      const r = await fetch("/dashboard/api/chat", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!r.ok) {
        setText("status", await errorText(r));
        return;
      }
      await readEvents(r, (data) => {
        if (data === "[DONE]") return;
        const chunk = JSON.parse(data);
        if (chunk.error) {
          setText("status", chunk.error.message);
          return;
        }
        const delta = chunk.choices && chunk.choices[0] && chunk.choices[0].delta;
        if (delta && delta.content) answer.textContent += delta.content;
        if (chunk.usage) setText("status", chunk.usage.total_tokens + " tokens");
      });
      await refreshBalance();
    } catch (e) {
      setText("status", "connection lost");
    } finally {
      send.disabled = false;
    }
  });
}

function setupImages() {
  const form = document.getElementById("image-form");
  if (!form) return;
  const nsfw = document.getElementById("nsfw");
  const confirm = document.getElementById("adult-confirm");
  nsfw.addEventListener("change", () => {
    confirm.hidden = !nsfw.checked;
    confirm.querySelector("input").required = nsfw.checked;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const f = new FormData(form);
    const body = {
      prompt: f.get("prompt"),
      width: Number(f.get("width")),
      height: Number(f.get("height")),
      steps: Number(f.get("steps")),
      cfg: Number(f.get("cfg")),
      nsfw: nsfw.checked,
    };
    if (f.get("negative_prompt")) body.negative_prompt = f.get("negative_prompt");
    if (f.get("seed")) body.seed = Number(f.get("seed"));
    const progress = document.getElementById("image-progress");
    // Indeterminate until the first step arrives.
    progress.removeAttribute("value");
    progress.hidden = false;
    setText("image-status", "Waiting for a worker…");
    try {
      const r = await fetch("/api/images/generate", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, stream: true }),
      });
      if (!r.ok) {
        setText("image-status", await errorText(r));
        return;
      }
      await readEvents(r, (data, name) => showImageEvent(progress, name, JSON.parse(data)));
      await refreshBalance();
    } catch (e) {
      setText("image-status", "connection lost");
    } finally {
      progress.hidden = true;
    }
  });
}

// One event of the streamed image answer: progress, the result, or an error.
function showImageEvent(progress, name, data) {
  if (name === "progress") {
    progress.max = data.steps;
    progress.value = data.step;
    setText("image-status", "Step " + data.step + " of " + data.steps);
  } else if (name === "result") {
    document.getElementById("image-out").src = data.image;
    document.getElementById("image-download").href = data.image;
    setText("image-seed", data.seed);
    document.getElementById("image-result").hidden = false;
    setText("image-status", data.credits_charged + " credits");
  } else if (name === "error") {
    setText("image-status", data.error.message);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  setupCopy();
  setupPlayground();
  setupImages();
});
