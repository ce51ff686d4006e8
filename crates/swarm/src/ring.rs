//! The ring registry: live span nodes by fingerprint, the coverage of each model's layers, and
//! the cheapest chain of spans through them.
//!
//! A chain is a path from layer boundary 0 to boundary L in the graph whose edges are spans
//! (`start → end`, cost: the step time the node announced). Spans must abut
//! exactly: an overlapping span only helps where its own boundaries meet others'. Spans only go
//! forward, so the graph is acyclic and one pass over the L + 1 boundaries in order finds the
//! shortest path; rings are small, so a fresh search per job is cheap.

use std::collections::{BTreeMap, HashMap};

use shoal_protocol::swarm::SpanInfo;

use shoal_gateway::pool::WorkerId;

/// One live span node.
#[derive(Debug, Clone)]
struct Node {
    span: SpanInfo,
    /// Sessions running on it, and how many it takes at once.
    busy: u32,
    capacity: u32,
}

/// What an operator sees of one model's ring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    pub fingerprint: String,
    pub layers: u32,
    pub nodes: usize,
    /// Layer ranges `[a, b)` no chain of live spans can cross.
    pub gaps: Vec<(u32, u32)>,
    /// Whether a chain of live spans covers `[0, layers)`.
    pub covered: bool,
}

/// The registry. Not synchronised: the gateway holds it behind its own lock.
#[derive(Debug, Default)]
pub struct Ring {
    nodes: HashMap<WorkerId, Node>,
}

impl Ring {
    /// Adds (or replaces) a node's span. The span must already have passed `SpanInfo::check`.
    pub fn join(&mut self, worker: WorkerId, span: SpanInfo, capacity: u32) {
        let node = Node {
            span,
            busy: 0,
            capacity: capacity.max(1),
        };
        self.nodes.insert(worker, node);
    }

    pub fn leave(&mut self, worker: WorkerId) -> bool {
        self.nodes.remove(&worker).is_some()
    }

    /// Counts a session in (`+1`) or out (`-1`) on each node of a chain.
    pub fn occupy(&mut self, chain: &[WorkerId], delta: i32) {
        for w in chain {
            if let Some(n) = self.nodes.get_mut(w) {
                n.busy = n.busy.saturating_add_signed(delta);
            }
        }
    }

    /// Whether any model's layers are covered by live spans (full nodes count: they will free).
    pub fn available(&self) -> bool {
        self.coverage().iter().any(|c| c.covered)
    }

    /// Coverage of every fingerprint the ring has nodes for, sorted by fingerprint.
    pub fn coverage(&self) -> Vec<Coverage> {
        let mut by_model: BTreeMap<(&str, u32), Vec<&SpanInfo>> = BTreeMap::new();
        for n in self.nodes.values() {
            by_model
                .entry((n.span.fingerprint.as_str(), n.span.total))
                .or_default()
                .push(&n.span);
        }
        by_model
            .into_iter()
            .map(|((fingerprint, layers), spans)| {
                let reach = reachable(layers, &spans);
                Coverage {
                    fingerprint: fingerprint.to_owned(),
                    layers,
                    nodes: spans.len(),
                    gaps: gaps(layers, &spans),
                    covered: reach[layers as usize],
                }
            })
            .collect()
    }

    /// The cheapest chain over all models, entry first, leaving out `exclude` and full nodes.
    pub fn chain(&self, exclude: &[WorkerId]) -> Option<Vec<WorkerId>> {
        self.cheapest_of(exclude, None)
    }

    /// [`Ring::chain`] through spans of the model `fingerprint` only: where a job whose entry
    /// was lost goes on.
    pub fn chain_for(&self, fingerprint: &str) -> Option<Vec<WorkerId>> {
        self.cheapest_of(&[], Some(fingerprint))
    }

    fn cheapest_of(&self, exclude: &[WorkerId], only: Option<&str>) -> Option<Vec<WorkerId>> {
        let usable = |(id, n): &(&WorkerId, &Node)| n.busy < n.capacity && !exclude.contains(id);
        let mut models: Vec<(&str, u32)> = self
            .nodes
            .values()
            .map(|n| (n.span.fingerprint.as_str(), n.span.total))
            .filter(|(fp, _)| only.is_none_or(|o| o == *fp))
            .collect();
        models.sort_unstable();
        models.dedup();
        models
            .into_iter()
            .filter_map(|(fp, layers)| {
                let edges: Vec<(WorkerId, &Node)> = self
                    .nodes
                    .iter()
                    .filter(usable)
                    .filter(|(_, n)| n.span.fingerprint == fp && n.span.total == layers)
                    .map(|(id, n)| (*id, n))
                    .collect();
                cheapest(layers, &edges)
            })
            .min_by_key(|(cost, chain)| (*cost, chain.len()))
            .map(|(_, chain)| chain)
    }

    /// The cheapest chain that starts at `entry` (a running session's entry, so it counts
    /// whether full or not), leaving out full nodes: where a broken session goes on.
    pub fn chain_from(&self, entry: WorkerId) -> Option<Vec<WorkerId>> {
        let e = self.nodes.get(&entry).filter(|n| n.span.is_entry())?;
        let edges: Vec<(WorkerId, &Node)> = self
            .nodes
            .iter()
            .filter(|(_, n)| {
                n.span.fingerprint == e.span.fingerprint && n.span.total == e.span.total
            })
            .filter(|(id, n)| match n.span.is_entry() {
                true => **id == entry,
                false => n.busy < n.capacity,
            })
            .map(|(id, n)| (*id, n))
            .collect();
        cheapest(e.span.total, &edges).map(|(_, chain)| chain)
    }

    /// Every node: its span, sessions running and capacity.
    pub fn nodes(&self) -> impl Iterator<Item = (WorkerId, &SpanInfo, u32, u32)> {
        self.nodes
            .iter()
            .map(|(id, n)| (*id, &n.span, n.busy, n.capacity))
    }

    /// The span a node announced.
    pub fn span(&self, worker: WorkerId) -> Option<&SpanInfo> {
        self.nodes.get(&worker).map(|n| &n.span)
    }
}

/// Which layer boundaries a chain from 0 can reach.
fn reachable(layers: u32, spans: &[&SpanInfo]) -> Vec<bool> {
    let mut reach = vec![false; layers as usize + 1];
    reach[0] = true;
    // Spans only go forward, so one pass over the boundaries in order settles each.
    for b in 0..layers as usize {
        if reach[b] {
            for s in spans.iter().filter(|s| s.start as usize == b) {
                reach[s.end as usize] = true;
            }
        }
    }
    reach
}

/// The layer ranges that no span holds, merged.
fn gaps(layers: u32, spans: &[&SpanInfo]) -> Vec<(u32, u32)> {
    let mut held = vec![false; layers as usize];
    for s in spans {
        held[s.start as usize..s.end as usize].fill(true);
    }
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (i, _) in held.iter().enumerate().filter(|(_, h)| !**h) {
        let i = i as u32;
        match out.last_mut() {
            Some(last) if last.1 == i => last.1 = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

/// The cheapest path from boundary 0 to `layers`; ties go to fewer hops, then to lower worker ids.
fn cheapest(layers: u32, edges: &[(WorkerId, &Node)]) -> Option<(u64, Vec<WorkerId>)> {
    let n = layers as usize + 1;
    // (cost, hops, previous boundary, node taken)
    let mut best: Vec<Option<(u64, usize, usize, WorkerId)>> = vec![None; n];
    best[0] = Some((0, 0, 0, 0));
    // Edges go strictly forward, so boundaries in increasing order are a topological order.
    for b in 0..n {
        let Some((cost, hops, _, _)) = best[b] else {
            continue;
        };
        let mut out: Vec<&(WorkerId, &Node)> = edges
            .iter()
            .filter(|(_, e)| e.span.start as usize == b)
            .collect();
        out.sort_by_key(|(id, _)| *id);
        for (id, node) in out {
            let next = node.span.end as usize;
            let c = cost + node.span.step_us;
            let better = match best[next] {
                None => true,
                Some((bc, bh, _, _)) => (c, hops + 1) < (bc, bh),
            };
            if better {
                best[next] = Some((c, hops + 1, b, *id));
            }
        }
    }
    let (cost, _, _, _) = best[n - 1]?;
    let mut chain = Vec::new();
    let mut at = n - 1;
    while at != 0 {
        let (_, _, prev, id) = best[at]?;
        chain.push(id);
        at = prev;
    }
    chain.reverse();
    Some((cost, chain))
}

#[cfg(test)]
mod tests;
