"""The dashboard in a real browser (tests/e2e/node/dashboard.mjs: playwright-core driving
Debian's Chromium) against real `shoal serve` + `shoal worker` processes, with the openai SDK
for the API-key side: sign up, create a key (shown once), use it, see it in the usage page,
chat in the playground on the free daily credits, give the key a daily spending limit and see
what is left drop by a request's cost, revoke the key, log out. Then the guards:
cross-site requests, login throttling, sessions and keys kept apart. And the password reset
by mail, through a stand-in SMTP server (tests/e2e/smtp_inbox.py).

Screenshots of every page go to $SHOAL_SHOTS (default target/dashboard-shots, git-ignored)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import uuid
from pathlib import Path

import httpx
import openai
import pytest

from harness import E2E_DIR, REPO_ROOT, settled, wait_for
from smtp_inbox import Inbox

NODE_DIR = E2E_DIR / "node"
MODEL = "large-27b-uncensored"
PASSWORD = "correct horse battery staple"
KEY_NAME = "<script>alert(1)</script>"


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "chromium is required for the browser tests (.ci/run installs it)"
    return path


class Browser:
    """Runs dashboard.mjs steps with one browser profile (cookies kept in a state file)."""

    def __init__(self, base: str, email: str, tmp: Path):
        assert (NODE_DIR / "node_modules" / "playwright-core").is_dir(), \
            "tests/e2e/node/node_modules is missing: tests/e2e/run.sh installs it (npm ci)"
        self.shots = Path(os.environ.get("SHOAL_SHOTS", REPO_ROOT / "target" / "dashboard-shots"))
        self.shots.mkdir(parents=True, exist_ok=True)
        self.state = tmp / "browser-state.json"
        self.env = dict(os.environ, SHOAL_BASE=base, SHOAL_EMAIL=email, SHOAL_PASSWORD=PASSWORD,
                        SHOAL_STATE=str(self.state), SHOAL_SHOTS=str(self.shots), CHROMIUM=chromium(),
                        SHOAL_MODEL=MODEL, SHOAL_KEY_NAME=KEY_NAME)

    def run(self, step: str, **extra: str) -> dict:
        out = subprocess.run(["node", "dashboard.mjs", step], cwd=NODE_DIR, env={**self.env, **extra},
                             capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, f"dashboard.mjs {step} failed ({out.returncode}):\n{out.stderr}"
        got = json.loads(out.stdout.strip().splitlines()[-1])
        assert got["errors"] == [], f"browser console errors in {step}: {got['errors']}"
        return got

    def cookie(self) -> str:
        cookies = json.loads(self.state.read_text())["cookies"]
        session = [c for c in cookies if c["name"] == "shoal_session"]
        assert len(session) == 1, cookies
        c = session[0]
        assert c["httpOnly"] and c["sameSite"] == "Strict", c
        return c["value"]


def session_balance(gateway, cookie: str) -> httpx.Response:
    return httpx.get(gateway.base + "/dashboard/api/balance", timeout=10,
                     headers={"Cookie": f"shoal_session={cookie}", "Sec-Fetch-Site": "same-origin"})


def account_id(gateway, email: str) -> str:
    with sqlite3.connect(gateway.data_dir / "shoal.db") as db:
        (row,) = db.execute("SELECT id FROM accounts WHERE email = ?", (email,)).fetchall()
    return str(row[0])


def test_dashboard_flow(gateway, worker, tmp_path):
    gateway.wait_available([MODEL])
    email = f"dash-{uuid.uuid4().hex[:10]}@e2e.test"
    browser = Browser(gateway.base, email, tmp_path)

    # Sign up, create a key: shown once, copied, its name rendered as text.
    made = browser.run("signup")
    key = made["key"]
    assert key.startswith("sk-shoal-") and made["copied"] == "Copied"
    assert made["nameCell"] == KEY_NAME and made["scripts"] == 0
    cookie = browser.cookie()

    # The key works with the openai SDK (API requests bill the balance).
    gateway.admin("credits", "grant", "--account", account_id(gateway, email), "--credits", "100")
    client = openai.OpenAI(base_url=gateway.api, api_key=key, max_retries=0, timeout=30)
    reply = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content
    # (The settle is written just after the answer.)
    after_key = wait_for(lambda: (b := session_balance(gateway, cookie).json())["credits"] < 100 and b,
                         timeout=10, what="the key request's settle")
    assert after_key["free_left"] == after_key["free_daily_credits"] > 0, after_key

    # After a reload only the prefix; usage shows the request and the chart draws; the
    # playground streams an answer on the free credits while the balance stays.
    seen = browser.run("playground", SHOAL_KEY=key)
    assert not seen["keyShown"] and seen["prefix"] == key[:13] + "…"
    assert seen["usage"]["requests"] == "1" and seen["usage"]["bars"] == 30
    assert seen["usage"]["drawn"] >= 1
    # Usage by key, and the key's last use.
    assert seen["usage"]["byKey"] == "1" and seen["usage"]["dashboardOnly"] == 0
    assert seen["lastUsed"].endswith(" UTC"), seen["lastUsed"]
    assert seen["answer"].startswith("Hello from upstream")
    assert seen["freeAfter"] < seen["usage"]["freeBefore"]
    assert seen["creditsAfter"] == seen["usage"]["creditsBefore"] == after_key["credits"]
    assert seen["confirmShown"] and "500" in seen["buy"]
    assert not seen["overflow"], "the usage page scrolls sideways at phone width"
    assert seen["revokeInReach"], "Revoke must be in reach on the keys page at phone width"

    # An API-key request leaves the free credits alone.
    before = session_balance(gateway, cookie).json()
    client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "again"}])
    after = wait_for(lambda: (b := session_balance(gateway, cookie).json())["credits"] < before["credits"] and b,
                     timeout=10, what="the second key request's settle")
    assert after["free_left"] == before["free_left"]

    # A limit of 20 credits a day through the key's form (a redirect back to the tab); the
    # key's next request lowers what is left by exactly what it was charged.
    shown = browser.run("limit", SHOAL_LIMIT="20")
    assert shown["url"].endswith("/dashboard/keys"), shown
    assert shown["limit"] == "20 daily" and shown["remaining"] == 20, shown
    assert shown["resets"].startswith("resets ") and shown["resets"].endswith(" 00:00 UTC"), shown
    reply = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "limited"}])
    cost = reply.usage.model_extra["cost"]
    assert cost >= 1, reply.usage
    settled(gateway, key)
    assert browser.run("limitLeft")["remaining"] == 20 - cost

    # Revoked: the key gets 401 (within the auth cache's second).
    assert browser.run("revoke")["state"] == "revoked"

    def refused():
        try:
            client.models.list()
        except openai.AuthenticationError:
            return True
        return False

    wait_for(refused, timeout=5, what="the revoked key to be refused")

    # Logged out: the old cookie opens nothing.
    assert browser.run("logout")["url"].endswith("/dashboard/login")
    assert session_balance(gateway, cookie).status_code == 401
    page = httpx.get(gateway.base + "/dashboard/usage", headers={"Cookie": f"shoal_session={cookie}"})
    assert page.status_code == 303 and page.headers["location"] == "/dashboard/login"


def login(gateway, email: str, password: str, **headers) -> httpx.Response:
    return httpx.post(gateway.base + "/dashboard/login", data={"email": email, "password": password},
                      headers={"Origin": gateway.base, **headers}, timeout=30)


def sign_up(gateway, email: str) -> str:
    """Signs up, then logs in (sign-up answers the same whether or not the address had an
    account, so it never logs in itself); the session cookie."""
    r = httpx.post(gateway.base + "/dashboard/signup", data={"email": email, "password": PASSWORD},
                   headers={"Sec-Fetch-Site": "same-origin"}, timeout=30)
    assert r.status_code == 303 and r.headers["location"] == "/dashboard/login?new", r.text
    r = login(gateway, email, PASSWORD)
    assert r.status_code == 303, r.text
    return r.cookies["shoal_session"]


def test_dashboard_guards(gateway, tmp_path):
    email = f"guard-{uuid.uuid4().hex[:10]}@e2e.test"
    cookie = sign_up(gateway, email)
    jar = {"Cookie": f"shoal_session={cookie}"}
    for h in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "http://evil.example"}, {}):
        r = httpx.post(gateway.base + "/dashboard/keys", data={"name": "x"}, headers={**jar, **h})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden", (h, r.text)
        r = httpx.post(gateway.base + "/api/images/generate", json={"prompt": "a boat"}, headers={**jar, **h})
        assert r.status_code == 403, (h, r.text)
    # Every page carries the security headers.
    r = httpx.get(gateway.base + "/dashboard/keys", headers=jar)
    assert r.status_code == 200
    # This gateway runs no browser models: no "Contribute this browser" (it would lead to a 404).
    assert "Log out" in r.text and "Contribute this browser" not in r.text
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["referrer-policy"] == "no-referrer"
    # A session never authorises /api/v1; a key never opens a page.
    assert httpx.get(gateway.api + "/balance", headers=jar).status_code == 401
    key = gateway.new_account(credits=0).key
    r = httpx.get(gateway.base + "/dashboard/usage", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 303 and r.headers["location"] == "/dashboard/login"
    # Login: rotated at each login; throttled after five failures, with a clear message.
    again = login(gateway, email, PASSWORD, Cookie=f"shoal_session={cookie}")
    assert again.status_code == 303 and again.cookies["shoal_session"] != cookie
    assert session_balance(gateway, cookie).status_code == 401, "the old session ended"
    # A failed login's page is a signed-out page: no nav, no "Log out", the typed email kept
    # in the form only.
    r = login(gateway, email, "wrong password!")
    assert r.status_code == 401 and f'value="{email}"' in r.text
    assert "Log out" not in r.text and 'href="/dashboard/usage"' not in r.text, r.text
    for _ in range(4):
        assert login(gateway, email, "wrong password!").status_code == 401
    r = login(gateway, email, PASSWORD)
    assert r.status_code == 429 and "Too many failed attempts" in r.text
    # Wrong input: a 4xx page, never a 5xx.
    r = httpx.post(gateway.base + "/dashboard/signup", data={"email": "nope", "password": PASSWORD},
                   headers={"Origin": gateway.base})
    assert r.status_code == 400 and "email address" in r.text
    r = httpx.post(gateway.base + "/dashboard/signup", data={"email": email},
                   headers={"Origin": gateway.base})
    assert 400 <= r.status_code < 500


def test_password_reset_by_mail(gateway_factory, tmp_path):
    mailbox = Inbox()
    try:
        reset_flow(gateway_factory, mailbox, tmp_path)
    finally:
        mailbox.stop()


def reset_flow(gateway_factory, mailbox: Inbox, tmp_path):
    # The links name the site's public address; the test opens the same path on the gateway.
    site = "http://shoal.e2e.test"
    gw = gateway_factory(f"""[smtp]
host = "127.0.0.1"
port = {mailbox.port}
tls = "none"
from = "Shoal <no-reply@e2e.test>"
site_url = "{site}"
""")
    email = f"reset-{uuid.uuid4().hex[:10]}@e2e.test"
    old_cookie = sign_up(gw, email)
    assert session_balance(gw, old_cookie).status_code == 200

    # An unknown address gets the same answer, and no mail.
    unknown = f"nobody-{uuid.uuid4().hex[:6]}@e2e.test"
    r = httpx.post(gw.base + "/dashboard/reset", data={"email": unknown}, headers={"Origin": gw.base})
    assert r.status_code == 200 and "Check your email" in r.text

    browser = Browser(gw.base, email, tmp_path)
    asked = browser.run("forgot")
    assert asked["heading"] == "Check your email" and email in asked["text"]
    (to, mail) = wait_for(lambda: mailbox.received() and mailbox.received()[0], timeout=20,
                          what="the reset mail")
    # Only the known address got a mail (the unknown one was asked for first).
    assert to == [email] and len(mailbox.received()) == 1, mailbox.received()
    assert mail["Subject"] == "Reset your Shoal password" and "no-reply@e2e.test" in mail["From"]
    links = re.findall(r"http\S+/dashboard/reset/shoal-r-[0-9A-Za-z]+", mail.get_content())
    assert len(links) == 1 and links[0].startswith(site + "/"), mail.get_content()
    link = gw.base + links[0][len(site):]

    new_password = "a brand new passphrase"
    done = browser.run("newPassword", SHOAL_LINK=link, SHOAL_NEW_PASSWORD=new_password)
    assert "password was changed" in done["notice"] and done["url"].endswith("/dashboard/usage")
    # Logged out everywhere; the old password and the used link open nothing.
    assert session_balance(gw, old_cookie).status_code == 401
    assert login(gw, email, PASSWORD).status_code == 401
    assert login(gw, email, new_password).status_code == 303
    assert httpx.get(link).status_code == 404
    r = httpx.post(link, data={"password": "another new one!", "confirm": "another new one!"},
                   headers={"Origin": gw.base})
    assert r.status_code == 404 and "already used" in r.text
    assert login(gw, email, "another new one!").status_code == 401


@pytest.fixture(autouse=True)
def _node_present():
    assert shutil.which("node"), "node is required for the browser tests (.ci/run installs it)"
