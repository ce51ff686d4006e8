//! Checks on the definitions as a whole, once every `$ref` is read.
//!
//! - No definition reaches itself before a value starts (`A = anyOf[A, …]`): a grammar from
//!   it would be left-recursive, which llama.cpp refuses.
//! - The root admits a finite value, and options that admit none (an optional property whose
//!   schema requires itself without end) are dropped, so that a model can never start down a
//!   path it cannot finish.

use super::Node;

/// `Err((definition, reason))` for the first definition at fault.
pub(super) fn check(defs: &mut [Node]) -> Result<(), (usize, &'static str)> {
    for start in 0..defs.len() {
        if reaches_itself(defs, start) {
            return Err((
                start,
                "a definition refers to itself before any value is written",
            ));
        }
    }
    let finite = finite(defs);
    if !finite[0] {
        return Err((
            0,
            "the schema admits no finite value: a required property or item refers back \
             without end",
        ));
    }
    for def in defs.iter_mut() {
        prune(def, &finite);
    }
    Ok(())
}

/// The definitions a value of `node` may start with (without writing anything first).
fn heads(node: &Node, out: &mut Vec<usize>) {
    match node {
        Node::Ref(j) => out.push(*j),
        Node::AnyOf(options) => options.iter().for_each(|o| heads(o, out)),
        _ => {}
    }
}

fn reaches_itself(defs: &[Node], start: usize) -> bool {
    let mut seen = vec![false; defs.len()];
    let mut todo = Vec::new();
    heads(&defs[start], &mut todo);
    while let Some(j) = todo.pop() {
        if j == start {
            return true;
        }
        if !std::mem::replace(&mut seen[j], true) {
            heads(&defs[j], &mut todo);
        }
    }
    false
}

/// Which definitions admit a finite value (a least fixed point).
fn finite(defs: &[Node]) -> Vec<bool> {
    let mut finite = vec![false; defs.len()];
    loop {
        let mut changed = false;
        for (i, def) in defs.iter().enumerate() {
            if !finite[i] && admits(def, &finite) {
                finite[i] = true;
                changed = true;
            }
        }
        if !changed {
            return finite;
        }
    }
}

fn admits(node: &Node, finite: &[bool]) -> bool {
    match node {
        Node::Ref(j) => finite[*j],
        Node::AnyOf(options) => options.iter().any(|o| admits(o, finite)),
        Node::Array(a) => {
            let min = a.min_items as usize;
            a.prefix.iter().take(min).all(|n| admits(n, finite))
                && (min <= a.prefix.len() || a.rest.as_deref().is_some_and(|r| admits(r, finite)))
        }
        Node::Object(o) => o
            .properties
            .iter()
            .filter(|p| p.required)
            .all(|p| admits(&p.node, finite)),
        _ => true,
    }
}

/// Drops the options of `node` that admit no finite value.
fn prune(node: &mut Node, finite: &[bool]) {
    match node {
        Node::AnyOf(options) => {
            options.retain(|o| admits(o, finite));
            options.iter_mut().for_each(|o| prune(o, finite));
        }
        Node::Object(o) => {
            o.properties
                .retain(|p| p.required || admits(&p.node, finite));
            o.properties
                .iter_mut()
                .for_each(|p| prune(&mut p.node, finite));
            if o.extra.as_deref().is_some_and(|e| !admits(e, finite)) {
                o.extra = None;
            }
            o.extra.iter_mut().for_each(|e| prune(e, finite));
        }
        Node::Array(a) => {
            if let Some(k) = a.prefix.iter().position(|n| !admits(n, finite)) {
                // Arrays stop before the first item that cannot be written (`k` is at least
                // `min_items`, or the array itself would admit nothing).
                a.prefix.truncate(k);
                a.rest = None;
            }
            if a.rest.as_deref().is_some_and(|r| !admits(r, finite)) {
                a.rest = None;
            }
            if a.rest.is_none() {
                let len = a.prefix.len() as u32;
                a.max_items = Some(a.max_items.map_or(len, |m| m.min(len)));
            }
            a.prefix.iter_mut().for_each(|n| prune(n, finite));
            a.rest.iter_mut().for_each(|r| prune(r, finite));
        }
        _ => {}
    }
}
