// The "Buy credits" page in a real browser (playwright-core driving Debian's Chromium), one
// step of tests/e2e/test_deposits.py per run:
//   node buy.mjs STEP   with SHOAL_BASE, SHOAL_COOKIE (the session), SHOAL_SHOTS (screenshot
//   folder), CHROMIUM (binary), and for `pending` SHOAL_ANVIL (the chain's JSON-RPC URL) and
//   SHOAL_MINE (blocks to mine while the page is open).
// Prints one JSON line of what it saw; the Python side asserts.
import { chromium } from "playwright-core";
import jsQR from "jsqr";
import { PNG } from "pngjs";

const env = process.env;
const base = env.SHOAL_BASE;

async function shot(page, name) {
  await page.screenshot({ path: `${env.SHOAL_SHOTS}/${name}.png`, fullPage: true });
}

// Decodes the page's QR code from its pixels, as a phone camera would.
async function readQr(page) {
  const png = PNG.sync.read(await page.locator("svg.qr").first().screenshot());
  const found = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  return found ? found.data : null;
}

async function noSidewaysScroll(page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

async function view(page) {
  await page.goto(`${base}/dashboard/buy`);
  const address = await page.inputValue("#address-1");
  const link = await page.getAttribute("#pay-link-1", "href");
  const qr = await readQr(page);
  await page.click("button[data-copy='address-1']");
  await page.locator("button[data-copy='address-1']", { hasText: "Copied" }).waitFor({ timeout: 5000 }).catch(() => {});
  const copied = await page.textContent("button[data-copy='address-1']");
  const clipboard = await page.evaluate(() => navigator.clipboard.readText()).catch(() => null);
  const empty = await page.textContent("#deposits");
  const rules = await page.textContent(".rules");
  await shot(page, "buy-01-empty");
  // An amount in the link: the QR follows it.
  await page.fill("input[name=amount]", "2.5");
  await page.click(".amount-form button[type=submit]");
  await page.waitForURL("**/dashboard/buy?amount=2.5");
  const amountLink = await page.getAttribute("#pay-link-1", "href");
  const amountQr = await readQr(page);
  const amountCredits = await page.textContent("#amount-credits-1");
  await shot(page, "buy-02-amount");
  return { address, link, qr, copied, clipboard, empty, rules, amountLink, amountQr, amountCredits };
}

async function rpc(method, params) {
  const r = await fetch(env.SHOAL_ANVIL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await r.json()).result;
}

// The transfer shows as pending; blocks are mined with the page open, and the page moves to
// credited by itself (buy.js polls and reloads).
async function pending(page) {
  await page.goto(`${base}/dashboard/buy`);
  const row = page.locator("tr[data-state=pending]");
  await row.waitFor();
  const seen = {
    confirmations: await row.locator(".confirmations").textContent(),
    badge: await row.locator(".badge").textContent(),
    amount: await row.locator(".amount").textContent(),
    creditsBefore: Number(await page.textContent("#credits")),
  };
  await shot(page, "buy-03-pending");
  await page.setViewportSize({ width: 390, height: 844 });
  seen.phoneFits = await noSidewaysScroll(page);
  await shot(page, "buy-04-pending-phone");
  await page.setViewportSize({ width: 1200, height: 900 });
  await rpc("anvil_mine", ["0x" + Number(env.SHOAL_MINE).toString(16)]);
  const credited = page.locator("tr[data-state=credited]");
  await credited.waitFor({ timeout: 30000 });
  seen.creditedCell = await credited.locator(".credits").textContent();
  seen.pendingLeft = await page.locator("tr[data-state=pending]").count();
  seen.creditsAfter = Number(await page.textContent("#credits"));
  await shot(page, "buy-05-credited");
  await page.goto(`${base}/dashboard/usage`);
  seen.usageCredits = Number(await page.textContent("#credits"));
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/dashboard/buy`);
  seen.phoneFitsCredited = await noSidewaysScroll(page);
  await shot(page, "buy-06-credited-phone");
  return seen;
}

const steps = { view, pending };
const browser = await chromium.launch({ executablePath: env.CHROMIUM, headless: true, args: ["--no-sandbox"] });
try {
  const url = new URL(base);
  const context = await browser.newContext({
    viewport: { width: 1200, height: 900 },
    permissions: ["clipboard-read", "clipboard-write"],
  });
  await context.addCookies([{ name: "shoal_session", value: env.SHOAL_COOKIE, domain: url.hostname, path: "/" }]);
  context.setDefaultTimeout(20000);
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  const out = await steps[process.argv[2]](page);
  console.log(JSON.stringify({ ...out, errors }));
} finally {
  await browser.close();
}
