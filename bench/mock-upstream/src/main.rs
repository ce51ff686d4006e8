//! The benchmarks' upstream: `shoal-test-support`'s scripted OpenAI-compatible server on a
//! runtime of its own, answering at once, so that what a gateway in front of it adds is what
//! gets measured.
//!
//! ```text
//! mock-upstream [--listen 127.0.0.1:0] [--threads 1] [--chunks 0] [--delay-ms 0]
//! ```
//!
//! Prints `listening on http://ADDR` on stdout once it accepts connections. The reply is
//! `"Hello! This is a mock reply."` (6 words, 12 prompt tokens), one JSON body without
//! `stream`, else one content chunk per word (or `--chunks N` chunks of `tok`, `--delay-ms D`
//! apart); per request, `[[chunks N]]` and `[[delay_ms D]]` in the last message override the
//! flags (the module documentation of `shoal_test_support::upstream` has the rest).
//! `GET /_stats` says how many chat requests it answered (a check that a gateway did not
//! answer from a cache).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use shoal_test_support::upstream::{router, Counts, Options};

const REPLY_WORDS: &[&str] = &["Hello! ", "This ", "is ", "a ", "mock ", "reply."];
const PROMPT_TOKENS: u64 = 12;

fn usage() -> ! {
    eprintln!("usage: mock-upstream [--listen ADDR] [--threads N] [--chunks N] [--delay-ms D]");
    std::process::exit(2)
}

fn main() {
    let mut listen: SocketAddr = "127.0.0.1:0".parse().expect("a socket address");
    let mut threads = 1usize;
    let mut options = Options {
        reply: REPLY_WORDS,
        prompt_tokens: PROMPT_TOKENS,
        record: false,
        ..Options::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--listen" => listen = value().parse().unwrap_or_else(|_| usage()),
            "--threads" => threads = value().parse().unwrap_or_else(|_| usage()),
            "--chunks" => options.chunks = Some(value().parse().unwrap_or_else(|_| usage())),
            "--delay-ms" => {
                let ms = value().parse().unwrap_or_else(|_| usage());
                options.delay = Duration::from_millis(ms);
            }
            _ => usage(),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(serve(listen, options));
}

async fn serve(listen: SocketAddr, options: Options) {
    let app = router(options, Arc::new(Counts::default()));
    let listener = tokio::net::TcpListener::bind(listen).await.expect("bind");
    let addr = listener.local_addr().expect("local addr");
    // Small SSE events must leave at once: with Nagle on, an event written while the previous
    // one is unacknowledged waits for the peer's (delayed, up to 40 ms) ACK.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    println!("listening on http://{addr}");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    axum::serve(listener, app).await.expect("serve");
}
