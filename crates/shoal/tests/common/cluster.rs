//! What the multi-replica tests share: the Redis and NATS they run on (or a skip), and a
//! real `shoal worker` process on one replica.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::{admin, shoal_bin, Loc, Server};

/// One TCP exchange with a server at `addr`: `hello` sent (if any), the first bytes back.
fn first_bytes(addr: &str, hello: &[u8], n: usize) -> std::io::Result<Vec<u8>> {
    let addr = std::net::ToSocketAddrs::to_socket_addrs(addr)?
        .next()
        .ok_or(std::io::ErrorKind::NotFound)?;
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
    s.set_read_timeout(Some(Duration::from_secs(1)))?;
    s.write_all(hello)?;
    let mut buf = vec![0u8; n];
    s.read_exact(&mut buf)?;
    Ok(buf)
}

/// `url` when a server answers there as `probe` says, `None` (after saying so) when it does
/// not and `skip_var=skip`; panics otherwise.
fn reachable_or_skip(
    url_var: &str,
    default: &str,
    skip_var: &str,
    probe: impl Fn(&str) -> bool,
) -> Option<String> {
    let url = std::env::var(url_var).unwrap_or_else(|_| default.to_owned());
    let addr = url.split_once("://").map_or(url.as_str(), |(_, a)| a);
    let addr = addr
        .rsplit('@')
        .next()
        .unwrap_or(addr)
        .trim_end_matches('/');
    if probe(addr) {
        return Some(url);
    }
    if std::env::var(skip_var).as_deref() == Ok("skip") {
        eprintln!("SKIPPED: nothing answers at {url} ({skip_var}=skip)");
        return None;
    }
    panic!("nothing answers at {url} (set {skip_var}=skip to skip)");
}

/// The Redis URL (SHOAL_TEST_REDIS_URL, default redis://127.0.0.1:6379), or `None` when it is
/// unreachable and SHOAL_TEST_REDIS=skip.
pub fn redis_or_skip() -> Option<String> {
    let pong = |addr: &str| first_bytes(addr, b"PING\r\n", 7).is_ok_and(|b| b == b"+PONG\r\n");
    reachable_or_skip(
        "SHOAL_TEST_REDIS_URL",
        "redis://127.0.0.1:6379",
        "SHOAL_TEST_REDIS",
        pong,
    )
}

/// The NATS URL (SHOAL_TEST_NATS_URL, default nats://127.0.0.1:4222), or `None` when it is
/// unreachable and SHOAL_TEST_NATS=skip.
pub fn nats_or_skip() -> Option<String> {
    // A NATS server greets every connection with `INFO {…}`.
    let info = |addr: &str| first_bytes(addr, b"", 5).is_ok_and(|b| b == b"INFO ");
    reachable_or_skip(
        "SHOAL_TEST_NATS_URL",
        "nats://127.0.0.1:4222",
        "SHOAL_TEST_NATS",
        info,
    )
}

/// A `shoal worker --backend openai` process connected to one replica.
pub struct WorkerProcess {
    child: Child,
}

impl WorkerProcess {
    /// Serves `service-pro` with `concurrency` slots from `upstream` (a `…/v1` URL) on `s`.
    pub fn start(s: &Server, store: &Loc, upstream: &str, concurrency: u32) -> WorkerProcess {
        let token = admin(store, &["worker-token", "create", "--name", "cluster"]);
        let log = s.data_dir.join(format!("worker-{}.log", rand_tag()));
        let child = Command::new(shoal_bin())
            .args(["worker", "--gateway", &s.base, "--token", &token])
            .args(["--backend", "openai", "--upstream", upstream])
            .args(["--serve", "service-pro", "--concurrency"])
            .arg(concurrency.to_string())
            .env("SHOAL_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .expect("spawn shoal worker");
        WorkerProcess { child }
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

fn rand_tag() -> usize {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as usize
}
