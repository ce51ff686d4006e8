// The dashboard in a real browser (playwright-core driving Debian's Chromium, headless), one
// step of tests/e2e/test_dashboard.py per run:
//   node dashboard.mjs STEP   with SHOAL_BASE, SHOAL_EMAIL, SHOAL_PASSWORD, SHOAL_STATE (the
//   browser's cookies between steps), SHOAL_SHOTS (screenshot folder), CHROMIUM (binary).
// Prints one JSON line of what it saw; the Python side asserts.
import { chromium } from "playwright-core";

const env = process.env;
const base = env.SHOAL_BASE;
const shots = env.SHOAL_SHOTS;

async function shot(page, name) {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

async function signup(page) {
  await page.goto(`${base}/dashboard/signup`);
  await shot(page, "01-signup");
  await page.fill("input[name=email]", env.SHOAL_EMAIL);
  await page.fill("input[name=password]", env.SHOAL_PASSWORD);
  await page.click("button[type=submit]");
  // Sign-up answers the same whether or not the address had an account: then log in.
  await page.waitForURL("**/dashboard/login?new");
  await page.fill("input[name=email]", env.SHOAL_EMAIL);
  await page.fill("input[name=password]", env.SHOAL_PASSWORD);
  await page.click("button[type=submit]");
  await page.waitForURL("**/dashboard/usage");
  await page.goto(`${base}/dashboard/keys`);
  await page.fill("input[name=name]", env.SHOAL_KEY_NAME);
  await page.click("form[action='/dashboard/keys'] button[type=submit]");
  const key = await page.inputValue("#new-key-value");
  await page.click("button[data-copy]");
  // The label changes once the clipboard write settles; wait for it (bounded), then read it.
  await page.locator("button[data-copy]", { hasText: "Copied" }).waitFor({ timeout: 5000 }).catch(() => {});
  const copied = await page.textContent("button[data-copy]");
  const nameCell = await page.textContent("td.name");
  const scripts = await page.locator("td.name script").count();
  await shot(page, "02-key-created");
  return { key, copied, nameCell, scripts };
}

async function playground(page) {
  await page.goto(`${base}/dashboard/keys`);
  const keysHtml = await page.content();
  const prefix = await page.textContent("td.mono");
  const lastUsed = await page.textContent("td.last-used");
  await shot(page, "03-keys");
  await page.goto(`${base}/dashboard/usage`);
  const usage = {
    requests: await page.locator("#by-model tfoot td").first().textContent(),
    bars: await page.locator("svg.chart rect").count(),
    drawn: await page.locator("svg.chart rect[height]:not([height='0'])").count(),
    freeBefore: Number(await page.textContent("#free-left")),
    creditsBefore: Number(await page.textContent("#credits")),
  };
  await shot(page, "04-usage");
  // The key selector: the key's own usage (its option follows "all" and "dashboard"), then
  // the dashboard's only (nothing yet: the playground comes next).
  await page.selectOption("#usage-key", { index: 2 });
  await page.click("#usage-filter button[type=submit]");
  await page.waitForURL(/key=\d+/);
  usage.byKey = await page.locator("#by-model tfoot td").first().textContent();
  await shot(page, "04b-usage-by-key");
  await page.selectOption("#usage-key", "dashboard");
  await page.click("#usage-filter button[type=submit]");
  await page.waitForURL(/key=dashboard/);
  usage.dashboardOnly = await page.locator("#by-model").count();
  await page.goto(`${base}/dashboard/playground`);
  await page.selectOption("#model", env.SHOAL_MODEL);
  await page.fill("#message", "Say hello");
  await page.click("#send");
  await page.waitForFunction(() => document.querySelector("#status").textContent.includes("tokens"));
  const answer = await page.textContent("#answer");
  await shot(page, "05-playground");
  // The settle is written just after the answer: reload (bounded) until it shows.
  let freeAfter = Number(await page.textContent("#free-left"));
  for (let i = 0; i < 40 && freeAfter >= usage.freeBefore; i++) {
    await page.waitForTimeout(250);
    await page.goto(`${base}/dashboard/playground`);
    freeAfter = Number(await page.textContent("#free-left"));
  }
  const creditsAfter = Number(await page.textContent("#credits"));
  await page.goto(`${base}/dashboard/images`);
  await page.check("#nsfw");
  const confirmShown = await page.isVisible("#adult-confirm");
  await shot(page, "06-images");
  await page.goto(`${base}/dashboard/buy`);
  const buy = await page.textContent(".price");
  await shot(page, "07-buy");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/dashboard/usage`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  await shot(page, "08-usage-phone");
  await page.goto(`${base}/dashboard/keys`);
  await shot(page, "09-keys-phone");
  // Revoke is in reach at phone width: inside the viewport, with nothing scrolling sideways.
  const revokeInReach = await page.evaluate(() => {
    const b = document.querySelector("table.keys button.danger")?.getBoundingClientRect();
    const wraps = [...document.querySelectorAll(".table-wrap")];
    return !!b && b.width > 0 && b.right <= window.innerWidth
      && wraps.every((w) => w.scrollWidth <= w.clientWidth)
      && document.documentElement.scrollWidth <= window.innerWidth;
  });
  const keyShown = keysHtml.includes(env.SHOAL_KEY || "\u0000");
  return { prefix, lastUsed, keyShown, usage, answer, freeAfter, creditsAfter, confirmShown, buy, overflow,
    revokeInReach };
}

// The images page renders one image on the free daily credits; the bar's value/max is
// sampled in the page from the click until the bar hides again.
async function images(page) {
  await page.goto(`${base}/dashboard/images`);
  // The age confirmation shows only once NSFW is ticked.
  const adult = [await page.isVisible("#adult-confirm")];
  await page.check("#nsfw");
  adult.push(await page.isVisible("#adult-confirm"));
  await page.uncheck("#nsfw");
  adult.push(await page.isVisible("#adult-confirm"));
  await page.fill("textarea[name=prompt]", "a lighthouse at dusk");
  await page.selectOption("select[name=width]", "512");
  await page.selectOption("select[name=height]", "512");
  await page.fill("input[name=steps]", "10");
  await page.fill("input[name=seed]", env.SHOAL_SEED);
  const sampled = page.evaluate(() => new Promise((resolve) => {
    const bar = document.getElementById("image-progress");
    const seen = [];
    const tick = () => {
      if (!bar.hidden) {
        const now = bar.hasAttribute("value") ? `${bar.value}/${bar.max}` : "indeterminate";
        if (seen[seen.length - 1] !== now) seen.push(now);
      } else if (seen.length > 0) {
        return resolve(seen);
      }
      setTimeout(tick, 10);
    };
    tick();
  }));
  await page.click("#image-form button[type=submit]");
  const bar = await sampled;
  await page.locator("#image-result").waitFor({ state: "visible", timeout: 5000 }).catch(() => {});
  await shot(page, "12-image");
  return {
    bar,
    status: await page.textContent("#image-status"),
    seed: await page.textContent("#image-seed"),
    src: ((await page.getAttribute("#image-out", "src")) || "").slice(0, 22),
    shown: await page.isVisible("#image-result"),
    adult,
  };
}

// What the API tab shows of the first key's limit.
async function limitShown(page) {
  return {
    url: page.url(),
    limit: await page.textContent("span.limit-value"),
    remaining: Number(await page.textContent("span.remaining")),
    resets: await page.textContent("span.resets"),
  };
}

// Sets a daily limit of SHOAL_LIMIT credits on the first key through its form.
async function limit(page) {
  await page.goto(`${base}/dashboard/keys`);
  await page.click("details.limit-edit summary");
  await page.fill("details.limit-edit input[name=limit]", env.SHOAL_LIMIT);
  await page.selectOption("details.limit-edit select[name=limit_reset]", "daily");
  await shot(page, "09b-key-limit-form");
  await page.click("details.limit-edit form.limit-form button[type=submit]");
  await page.waitForSelector("span.remaining");
  await shot(page, "09c-key-limit");
  return limitShown(page);
}

// The first key's limit, after a reload.
async function limitLeft(page) {
  await page.goto(`${base}/dashboard/keys`);
  return limitShown(page);
}

async function revoke(page) {
  await page.goto(`${base}/dashboard/keys`);
  await page.click("td.actions button");
  await page.waitForSelector("span.badge.revoked");
  await shot(page, "10-revoked");
  return { state: await page.textContent("span.badge") };
}

async function logout(page) {
  await page.goto(`${base}/dashboard/usage`);
  await page.click("header form button");
  await page.waitForURL("**/dashboard/login");
  await shot(page, "11-login");
  return { url: page.url() };
}

// "Forgot your password?" from the login page: asks for a link for SHOAL_EMAIL.
async function forgot(page) {
  await page.goto(`${base}/dashboard/login`);
  await page.click("a[href='/dashboard/reset']");
  await page.fill("input[name=email]", env.SHOAL_EMAIL);
  await shot(page, "13-reset-ask");
  await page.click("button[type=submit]");
  await page.waitForSelector("h1");
  await shot(page, "14-reset-asked");
  return { heading: await page.textContent("h1"), text: await page.textContent("section p") };
}

// Follows the mailed link SHOAL_LINK, sets SHOAL_NEW_PASSWORD, logs in with it.
async function newPassword(page) {
  await page.goto(env.SHOAL_LINK);
  await shot(page, "15-new-password");
  await page.fill("input[name=password]", env.SHOAL_NEW_PASSWORD);
  await page.fill("input[name=confirm]", env.SHOAL_NEW_PASSWORD);
  await page.click("button[type=submit]");
  await page.waitForSelector("p.notice");
  const notice = await page.textContent("p.notice");
  await shot(page, "16-password-changed");
  await page.fill("input[name=email]", env.SHOAL_EMAIL);
  await page.fill("input[name=password]", env.SHOAL_NEW_PASSWORD);
  await page.click("button[type=submit]");
  await page.waitForURL("**/dashboard/usage");
  return { notice, url: page.url() };
}

const steps = { signup, playground, images, limit, limitLeft, revoke, logout, forgot, newPassword };
const browser = await chromium.launch({ executablePath: env.CHROMIUM, headless: true, args: ["--no-sandbox"] });
try {
  const fs = await import("node:fs");
  const state = fs.existsSync(env.SHOAL_STATE) ? env.SHOAL_STATE : undefined;
  const context = await browser.newContext({
    storageState: state,
    viewport: { width: 1200, height: 900 },
    permissions: ["clipboard-read", "clipboard-write"],
  });
  context.setDefaultTimeout(20000);
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  const out = await steps[process.argv[2]](page);
  await context.storageState({ path: env.SHOAL_STATE });
  console.log(JSON.stringify({ ...out, errors }));
} finally {
  await browser.close();
}
