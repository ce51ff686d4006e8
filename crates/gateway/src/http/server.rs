//! The accept loop: HTTP/1.1 connections with the limits a public port needs.
//!
//! - A request's head must arrive whole within `header_read_timeout` of the connection's
//!   start or of its first byte (a client that sends half a header, or nothing, is cut);
//!   bytes trickling in do not extend it.
//! - A connection with no request in flight and no bytes either way for `idle_timeout` is
//!   closed (a keep-alive connection nobody uses, a stream gone silent: the answer in
//!   flight, if any, still finishes first).
//! - At most `max_connections` open at once, and `max_connections_per_address` from one
//!   client address (trusted proxies are counted in the total only); a connection beyond
//!   either is closed at once, so idle sockets from one address cannot use up the process's
//!   file descriptors.
//!
//! A connection's slot is held by its socket, so a WebSocket keeps its slot for its life.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::connect_info::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use super::TrustedProxies;

/// The server's limits (`header_read_timeout_secs`, `idle_timeout_secs`, `max_connections`,
/// `max_connections_per_address`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub max_connections_per_address: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(75),
            max_connections: 16_384,
            max_connections_per_address: 512,
        }
    }
}

/// Open connections, in all and per client address.
struct Connections {
    limits: ServerLimits,
    trusted: TrustedProxies,
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// A connection's place among [`Connections`], given back when it drops.
struct Slot {
    conns: Arc<Connections>,
    /// `None`: a trusted proxy, counted in the total only.
    address: Option<IpAddr>,
}

impl Connections {
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let ip = ip.to_canonical();
        let address = (!self.trusted.trusts(ip)).then_some(ip);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.0 >= self.limits.max_connections {
            return None;
        }
        if let Some(ip) = address {
            let n = open.1.entry(ip).or_insert(0);
            if *n >= self.limits.max_connections_per_address {
                return None;
            }
            *n += 1;
        }
        open.0 += 1;
        Some(Slot {
            conns: self.clone(),
            address,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = (self.conns.open.lock()).unwrap_or_else(|p| p.into_inner());
        open.0 -= 1;
        if let Some(ip) = self.address {
            if let Some(n) = open.1.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    open.1.remove(&ip);
                }
            }
        }
    }
}

/// Where a connection is between requests.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Waiting for (or reading) a request head since then.
    Head(Instant),
    /// A request is being handled.
    Busy,
    /// No request in flight; the last bytes moved then.
    Idle(Instant),
}

type Shared = Arc<Mutex<Phase>>;

fn set(phase: &Shared, f: impl FnOnce(Phase) -> Phase) {
    let mut p = phase.lock().unwrap_or_else(|p| p.into_inner());
    *p = f(*p);
}

/// The socket, noting bytes in [`Phase`], and holding the connection's [`Slot`].
struct Tracked {
    tcp: TcpStream,
    phase: Shared,
    _slot: Slot,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if buf.filled().len() > before {
            // The first byte after an idle spell starts a head; a head's later bytes do not
            // extend its time.
            set(&self.phase, |p| match p {
                Phase::Idle(_) => Phase::Head(Instant::now()),
                p => p,
            });
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.tcp).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            set(&self.phase, |p| match p {
                Phase::Idle(_) => Phase::Idle(Instant::now()),
                p => p,
            });
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// Accepts connections until `shutdown` resolves, then lets those open finish their requests
/// and returns when every connection task has ended.
pub(crate) async fn run(
    listener: TcpListener,
    app: Router,
    limits: ServerLimits,
    trusted: TrustedProxies,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let conns = Arc::new(Connections {
        limits,
        trusted,
        open: Mutex::default(),
    });
    let stop = CancellationToken::new();
    let (live, mut all_done) = mpsc::channel::<()>(1);
    let mut shutdown = pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    accept_failed(&e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Beyond a cap the socket is dropped here: closed at once.
        let Some(slot) = conns.admit(peer.ip()) else {
            tracing::debug!(%peer, "connection refused: over the connection caps");
            continue;
        };
        // Without TCP_NODELAY, Nagle's algorithm holds small SSE chunks and worker frames
        // back for up to 40 ms.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        let conn = Connection {
            app: app.clone(),
            limits,
            stop: stop.clone(),
            _live: live.clone(),
        };
        tokio::spawn(conn.serve(tcp, peer, slot));
    }
    drop(listener);
    stop.cancel();
    drop(live);
    all_done.recv().await;
    Ok(())
}

/// Out of file descriptors (or another transient accept error): say so, at most once a
/// second, and pause briefly instead of spinning.
async fn accept_failed(e: &std::io::Error) {
    static LAST: Mutex<Option<Instant>> = Mutex::new(None);
    let now = Instant::now();
    let due = {
        let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
        let due = last.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1));
        if due {
            *last = Some(now);
        }
        due
    };
    if due {
        tracing::warn!(error = %e, "accepting a connection failed");
    }
    tokio::time::sleep(Duration::from_millis(10)).await;
}

/// One connection's task.
struct Connection {
    app: Router,
    limits: ServerLimits,
    stop: CancellationToken,
    /// Dropped when the task ends; the server waits for every one at shutdown.
    _live: mpsc::Sender<()>,
}

impl Connection {
    async fn serve(self, tcp: TcpStream, peer: SocketAddr, slot: Slot) {
        let phase: Shared = Arc::new(Mutex::new(Phase::Head(Instant::now())));
        let io = TokioIo::new(Tracked {
            tcp,
            phase: phase.clone(),
            _slot: slot,
        });
        let service = TowerToHyperService::new(requests(self.app, peer, phase.clone()));
        let mut builder = hyper::server::conn::http1::Builder::new();
        // The head's time is watched below: hyper's own timer would also cut a keep-alive
        // connection between requests.
        builder.timer(TokioTimer::new()).header_read_timeout(None);
        let mut conn = pin!(builder.serve_connection(io, service).with_upgrades());
        let mut ticks = tokio::time::interval(tick(&self.limits));
        let mut closing = false;
        loop {
            tokio::select! {
                served = conn.as_mut() => {
                    if let Err(e) = served {
                        tracing::trace!(error = %e, "connection ended");
                    }
                    return;
                }
                () = self.stop.cancelled(), if !closing => {
                    conn.as_mut().graceful_shutdown();
                    closing = true;
                }
                _ = ticks.tick(), if !closing => match overdue(&phase, &self.limits) {
                    Some(Overdue::Head) => return,
                    Some(Overdue::Idle) => {
                        conn.as_mut().graceful_shutdown();
                        closing = true;
                    }
                    None => {}
                },
            }
        }
    }
}

/// The router as one connection's service: each request carries the peer's address, and
/// marks the connection busy until its answer's head is ready.
fn requests(
    app: Router,
    peer: SocketAddr,
    phase: Shared,
) -> impl tower::Service<
    hyper::Request<Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Send,
> + Clone {
    tower::service_fn(move |req: hyper::Request<Incoming>| {
        let (app, phase) = (app.clone(), phase.clone());
        set(&phase, |_| Phase::Busy);
        let mut req = req.map(Body::new);
        req.extensions_mut().insert(ConnectInfo(peer));
        async move {
            let answer = app.oneshot(req).await;
            set(&phase, |_| Phase::Idle(Instant::now()));
            answer
        }
    })
}

enum Overdue {
    /// A head took too long: nothing is in flight, the socket just closes.
    Head,
    /// Idle too long: closes once any answer in flight has been written.
    Idle,
}

fn overdue(phase: &Shared, limits: &ServerLimits) -> Option<Overdue> {
    let p = *phase.lock().unwrap_or_else(|p| p.into_inner());
    match p {
        Phase::Head(since) if since.elapsed() >= limits.header_read_timeout => Some(Overdue::Head),
        Phase::Idle(since) if since.elapsed() >= limits.idle_timeout => Some(Overdue::Idle),
        _ => None,
    }
}

/// How often a connection's times are checked: a quarter of the shorter limit, between
/// 50 ms and a second.
fn tick(limits: &ServerLimits) -> Duration {
    let shorter = limits.header_read_timeout.min(limits.idle_timeout);
    (shorter / 4).clamp(Duration::from_millis(50), Duration::from_secs(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_per_address_and_in_all() {
        let limits = ServerLimits {
            max_connections: 3,
            max_connections_per_address: 2,
            ..ServerLimits::default()
        };
        let trusted = TrustedProxies::parse(&["10.0.0.1".into()]).unwrap();
        let conns = Arc::new(Connections {
            limits,
            trusted,
            open: Mutex::default(),
        });
        let (a, proxy) = ("192.0.2.1".parse().unwrap(), "10.0.0.1".parse().unwrap());
        let first = conns.admit(a).unwrap();
        let _second = conns.admit(a).unwrap();
        assert!(conns.admit(a).is_none(), "per address");
        let _p = conns
            .admit(proxy)
            .expect("a proxy is not capped per address");
        assert!(
            conns.admit("192.0.2.2".parse().unwrap()).is_none(),
            "in all"
        );
        drop(first);
        assert!(conns.admit(a).is_some(), "a slot comes back");
    }
}
