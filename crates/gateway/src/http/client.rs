//! Who the client is: the socket's peer, or, when the peer is one of the operator's
//! `trusted_proxies`, the address its `X-Forwarded-For` names. Throttles and the access log
//! read the [`ClientAddr`] this puts in every request.
//!
//! The header is read right to left: each proxy appends the address it saw, so the entries a
//! trusted proxy wrote are on the right and anything a client made up is on the left. The
//! client is the rightmost entry that is not itself a trusted proxy; an entry that does not
//! parse ends the walk (whoever wrote it is not trusted), and so the last trusted hop counts.

use std::net::{IpAddr, SocketAddr};

use axum::extract::connect_info::ConnectInfo;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;
use ipnet::IpNet;

use crate::AppState;

/// The client's address, as [`resolve`] found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// The networks whose `X-Forwarded-For` is believed (`trusted_proxies`).
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// CIDRs (`10.0.0.0/8`, `::1/128`) or single addresses.
    pub fn parse(list: &[String]) -> anyhow::Result<TrustedProxies> {
        let net = |s: &String| {
            let s = s.trim();
            (s.parse::<IpNet>())
                .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| anyhow::anyhow!("trusted_proxies: {s:?} is not a CIDR or address"))
        };
        Ok(TrustedProxies(
            list.iter().map(net).collect::<Result<_, _>>()?,
        ))
    }

    pub(crate) fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|n| n.contains(&ip))
    }

    /// The client of a request from `peer` carrying `headers`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = peer.to_canonical();
        if !self.trusts(client) {
            return client;
        }
        let hops = (headers.get_all("x-forwarded-for").iter())
            .flat_map(|v| v.to_str().unwrap_or("?").split(','))
            .collect::<Vec<_>>();
        for hop in hops.iter().rev() {
            match hop.trim().parse::<IpAddr>() {
                Ok(ip) => client = ip.to_canonical(),
                Err(_) => break,
            }
            if !self.trusts(client) {
                break;
            }
        }
        client
    }
}

/// Puts the request's [`ClientAddr`] in it (the peer is unknown only to a router driven
/// without a socket, as in unit tests: then the unspecified address).
pub async fn resolve(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let peer = (req.extensions().get::<ConnectInfo<SocketAddr>>())
        .map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
    let client = state.config.trusted_proxies.client(peer, req.headers());
    req.extensions_mut().insert(ClientAddr(client));
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(trusted: &[&str], peer: &str, xff: &[&str]) -> String {
        let list: Vec<String> = trusted.iter().map(|s| s.to_string()).collect();
        let mut headers = HeaderMap::new();
        for v in xff {
            headers.append("x-forwarded-for", v.parse().unwrap());
        }
        let proxies = TrustedProxies::parse(&list).unwrap();
        proxies.client(peer.parse().unwrap(), &headers).to_string()
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let lb = ["10.0.0.0/8"];
        assert_eq!(client(&lb, "10.1.1.1", &["203.0.113.7"]), "203.0.113.7");
        // A made-up entry on the left is passed over.
        assert_eq!(
            client(&lb, "10.1.1.1", &["6.6.6.6, 203.0.113.7"]),
            "203.0.113.7"
        );
        assert_eq!(
            client(&lb, "10.1.1.1", &["6.6.6.6", "203.0.113.7, 10.2.2.2"]),
            "203.0.113.7"
        );
        // Every hop trusted: the leftmost; none, or garbage: the last trusted hop.
        assert_eq!(client(&lb, "10.1.1.1", &["10.3.3.3, 10.2.2.2"]), "10.3.3.3");
        assert_eq!(client(&lb, "10.1.1.1", &[]), "10.1.1.1");
        assert_eq!(client(&lb, "10.1.1.1", &["x, 10.2.2.2"]), "10.2.2.2");
        // An untrusted peer's header is ignored; IPv4-mapped IPv6 peers are IPv4.
        assert_eq!(client(&lb, "192.0.2.1", &["203.0.113.7"]), "192.0.2.1");
        assert_eq!(client(&[], "127.0.0.1", &["203.0.113.7"]), "127.0.0.1");
        assert_eq!(
            client(&["127.0.0.1"], "::ffff:127.0.0.1", &["2001:db8::1"]),
            "2001:db8::1"
        );
        assert!(TrustedProxies::parse(&["10.0.0.0/33".into()]).is_err());
    }
}
