"""What the gateway adds to an image request, and what image renders add to chat.

Real processes: `shoal serve`, `shoal-image-worker --backend a1111` in front of the scripted
txt2img stand-in (tests/e2e/a1111.py), and `shoal worker` in front of the scripted chat
upstream (tests/e2e/upstream.py), all on 127.0.0.1.

1. Overhead per image request: the gateway's own figure, `shoal_image_gateway_overhead_seconds`
   (arrival to the answer written, minus dispatch to the image's arrival), read as the
   histogram's bucket bounds; and, from the client, an image through the gateway and worker
   against the same txt2img call made directly, alternating.
2. Chat latency (non-streaming, a short answer) alone, then with 4 image renders in flight the
   whole time (1024x1024, noise PNGs of ~3 MB, each render --render-ms long).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from harness import Gateway, Proc, Upstream, Worker, shoal_bin_path  # noqa: E402
from test_images import A1111, ImageWorker, classifier_toml  # noqa: E402


def pct(values: list, p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def histogram_quantile(text: str, name: str, q: float) -> float:
    """The upper bound of the bucket holding quantile q of a Prometheus histogram."""
    buckets = []
    for line in text.splitlines():
        if line.startswith(name + "_bucket{"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float("inf") if le == "+Inf" else float(le), float(line.split()[-1])))
    total = buckets[-1][1]
    for le, count in buckets:
        if count >= q * total:
            return le
    return float("inf")


def tiny_classifier(runs: Path) -> str:
    """Config lines for the tiny test checker (images are never answered unchecked)."""
    out = subprocess.run([str(shoal_bin_path()), "classifier", "make-test", "--out", str(runs / "checker")],
                         capture_output=True, check=True, timeout=60)
    return classifier_toml(*map(Path, out.stdout.decode().split()))


def timed_post(client: httpx.Client, url: str, body: dict, key: str = "") -> float:
    """Seconds one POST took to answer 200."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    t = time.perf_counter()
    r = client.post(url, json=body, headers=headers)
    took = time.perf_counter() - t
    assert r.status_code == 200, r.text
    return took


def overhead(gw: Gateway, a1111: A1111, key: str, n: int) -> dict:
    body = {"prompt": "a lighthouse", "width": 512, "height": 512, "steps": 10, "seed": 1}
    txt2img = {"prompt": "a lighthouse", "negative_prompt": "x", "width": 512, "height": 512,
               "steps": 10, "cfg_scale": 4.0, "seed": 1, "batch_size": 1, "n_iter": 1}
    client = httpx.Client(timeout=60)
    via, direct = [], []
    for _ in range(n):
        via.append(timed_post(client, gw.base + "/api/images/generate", body, key))
        direct.append(timed_post(client, a1111.url + "/sdapi/v1/txt2img", txt2img))
    metrics = client.get(gw.base + "/metrics").text
    name = "shoal_image_gateway_overhead_seconds"
    check = "shoal_image_check_seconds"
    return {"via": via, "direct": direct,
            "hist_p50": histogram_quantile(metrics, name, 0.5),
            "hist_p99": histogram_quantile(metrics, name, 0.99),
            "check_p50": histogram_quantile(metrics, check, 0.5),
            "check_p99": histogram_quantile(metrics, check, 0.99)}


def chat_latencies(gw: Gateway, key: str, n: int) -> list:
    client = httpx.Client(timeout=60)
    body = {"model": "large-27b-uncensored", "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 16}
    return [timed_post(client, gw.api + "/chat/completions", body, key) for _ in range(n)]


def renders_in_flight(gw: Gateway, key: str, stop: threading.Event, done: list) -> None:
    client = httpx.Client(timeout=120)
    body = {"prompt": "a storm at sea", "width": 1024, "height": 1024, "steps": 10}
    while not stop.is_set():
        r = client.post(gw.base + "/api/images/generate", json=body,
                        headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200, r.text
        done.append(len(r.content))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=200, help="image requests for the overhead")
    ap.add_argument("--chat", type=int, default=300, help="chat requests per phase")
    ap.add_argument("--render-ms", type=int, default=1000, help="render time in the chat phase")
    args = ap.parse_args()
    runs = ROOT / "bench" / "results" / f"images-{time.strftime('%Y%m%d-%H%M%S')}"
    runs.mkdir(parents=True, exist_ok=True)
    try:
        checker = tiny_classifier(runs)
        gw = Gateway(shoal_bin_path(), runs / "gw", runs, config_toml=checker)
        account = gw.new_account(credits=10_000_000)
        fast = A1111(runs)
        ImageWorker(gw, fast, runs)
        o = overhead(gw, fast, account.key, args.requests)
        gap = [a - b for a, b in zip(o["via"], o["direct"])]
        print(f"## image overhead ({args.requests} requests, 512x512, stand-in render 0 ms)")
        print("| measure | p50 ms | p99 ms |\n|---|---|---|")
        print(f"| gateway's own (histogram bucket bound) | ≤ {ms(o['hist_p50'])} | ≤ {ms(o['hist_p99'])} |")
        print(f"| output check: base64 decode + classifier (bucket bound) | ≤ {ms(o['check_p50'])} | ≤ {ms(o['check_p99'])} |")
        print(f"| client: via gateway + worker | {ms(pct(o['via'], 50))} | {ms(pct(o['via'], 99))} |")
        print(f"| client: txt2img direct | {ms(pct(o['direct'], 50))} | {ms(pct(o['direct'], 99))} |")
        print(f"| difference, paired | {ms(pct(gap, 50))} | {ms(pct(gap, 99))} |")
        gw.stop()

        gw = Gateway(shoal_bin_path(), runs / "gw2", runs, config_toml=checker)
        account = gw.new_account(credits=10_000_000)
        upstream = Upstream(runs)
        Worker(shoal_bin_path(), gw, upstream, ["large-27b-uncensored"], runs, concurrency=8)
        # Noise PNGs: answers as large as real renders'.
        slow = A1111(runs, render_ms=args.render_ms, noise=True)
        ImageWorker(gw, slow, runs)
        chat_latencies(gw, account.key, 20)  # warm-up
        alone = chat_latencies(gw, account.key, args.chat)
        stop, done = threading.Event(), []
        loaders = [threading.Thread(target=renders_in_flight, args=(gw, account.key, stop, done))
                   for _ in range(4)]
        for t in loaders:
            t.start()
        time.sleep(args.render_ms / 1000 * 1.5)
        loaded = chat_latencies(gw, account.key, args.chat)
        stop.set()
        for t in loaders:
            t.join()
        print(f"\n## chat latency with and without 4 image renders in flight ({args.chat} requests each)")
        print("| phase | p50 ms | p99 ms | mean ms |\n|---|---|---|---|")
        print(f"| chat alone | {ms(pct(alone, 50))} | {ms(pct(alone, 99))} | {ms(statistics.mean(alone))} |")
        print(f"| with 4 renders in flight | {ms(pct(loaded, 50))} | {ms(pct(loaded, 99))} | {ms(statistics.mean(loaded))} |")
        print(f"| added | {ms(pct(loaded, 50) - pct(alone, 50))} | {ms(pct(loaded, 99) - pct(alone, 99))} | {ms(statistics.mean(loaded) - statistics.mean(alone))} |")
        avg = statistics.mean(done) / 1e6 if done else 0
        print(f"\n{len(done)} images of 1024x1024 rendered meanwhile (answers of {avg:.1f} MB each)")
        gw.stop()
    finally:
        Proc.kill_all()


if __name__ == "__main__":
    main()
