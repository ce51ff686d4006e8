"""What the image output classifier does to chat latency: real processes (`shoal serve` with
the classifier loaded from --weights, `shoal worker` in front of the scripted chat upstream,
`shoal-image-worker` in front of the txt2img stand-in answering banded PNGs at once, so the
classifier is the busy part of every image request), alternating phases of chat alone and
chat with image requests in flight, so drift on a shared machine hits both alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "bench" / "images"))

from bench import chat_latencies, histogram_quantile, ms, pct  # noqa: E402
from harness import Gateway, Proc, Upstream, Worker, shoal_bin_path  # noqa: E402
from test_images import A1111, ImageWorker, classifier_toml  # noqa: E402


def images_in_flight(gw: Gateway, key: str, side: int, stop: threading.Event, done: list) -> None:
    client = httpx.Client(timeout=120)
    body = {"prompt": "a storm at sea", "width": side, "height": side, "steps": 10}
    while not stop.is_set():
        r = client.post(gw.base + "/api/images/generate", json=body,
                        headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200, r.text
        done.append(time.perf_counter())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--weights", required=True, type=Path, help="checker file (bench-classifier writes it)")
    ap.add_argument("--concepts", type=Path, help="default: WEIGHTS with .concepts.json")
    ap.add_argument("--chat", type=int, default=100, help="chat requests per phase")
    ap.add_argument("--rounds", type=int, default=3, help="alone/loaded phase pairs")
    ap.add_argument("--clients", type=int, default=2, help="image clients in the loaded phases")
    ap.add_argument("--side", type=int, default=1024)
    args = ap.parse_args()
    concepts = args.concepts or args.weights.with_suffix(".concepts.json")
    runs = ROOT / "bench" / "results" / f"classifier-{time.strftime('%Y%m%d-%H%M%S')}"
    runs.mkdir(parents=True, exist_ok=True)
    try:
        gw = Gateway(shoal_bin_path(), runs / "gw", runs,
                     config_toml=classifier_toml(args.weights, concepts))
        account = gw.new_account(credits=10_000_000)
        Worker(shoal_bin_path(), gw, Upstream(runs), ["large-27b-uncensored"], runs, concurrency=8)
        ImageWorker(gw, A1111(runs), runs)  # banded PNGs: cheap for the stand-in to make
        chat_latencies(gw, account.key, 20)  # warm-up
        alone, loaded, done = [], [], []
        for _ in range(args.rounds):
            alone += chat_latencies(gw, account.key, args.chat)
            stop = threading.Event()
            loaders = [threading.Thread(target=images_in_flight,
                                        args=(gw, account.key, args.side, stop, done))
                       for _ in range(args.clients)]
            for t in loaders:
                t.start()
            time.sleep(2)
            started, before = time.perf_counter(), len(done)
            loaded += chat_latencies(gw, account.key, args.chat)
            rate = (len(done) - before) / (time.perf_counter() - started)
            stop.set()
            for t in loaders:
                t.join()
        metrics = httpx.get(gw.base + "/metrics").text
        name = "shoal_image_check_seconds"
        n = args.chat * args.rounds
        print(f"## chat latency with and without {args.clients} image clients ({args.side}², "
              f"render 0 ms, every image checked), {n} chat requests per phase, {args.rounds} alternations")
        print("| phase | p50 ms | p99 ms | mean ms |\n|---|---|---|---|")
        for label, xs in [("chat alone", alone), ("with images being checked", loaded)]:
            print(f"| {label} | {ms(pct(xs, 50))} | {ms(pct(xs, 99))} | {ms(statistics.mean(xs))} |")
        print(f"| ratio loaded / alone | {pct(loaded, 50) / pct(alone, 50):.2f} | "
              f"{pct(loaded, 99) / pct(alone, 99):.2f} | {statistics.mean(loaded) / statistics.mean(alone):.2f} |")
        print(f"\n{len(done)} images checked in the loaded phases (last phase {rate:.2f}/s); "
              f"shoal_image_check_seconds p50 ≤ {histogram_quantile(metrics, name, 0.5)} s, "
              f"p99 ≤ {histogram_quantile(metrics, name, 0.99)} s (bucket bounds, queue included)")
        gw.stop()
    finally:
        Proc.kill_all()


if __name__ == "__main__":
    main()
