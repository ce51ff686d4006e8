//! `shoal swarm`: tools for the swarm ring's span files; and `shoal admin swarm status`, which
//! reads a running gateway's ring from its `/metrics`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Subcommand};

#[derive(Args)]
pub struct SwarmArgs {
    #[command(subcommand)]
    command: SwarmCommand,
}

#[derive(Subcommand)]
enum SwarmCommand {
    /// Cut layers [a, b) of a GGUF model into a span file for `shoal worker --backend swarm`.
    Slice(SliceArgs),
}

#[derive(Args)]
struct SliceArgs {
    /// The whole model (GGUF).
    #[arg(long, value_name = "FILE")]
    gguf: PathBuf,
    /// The span's layers, a..b (layer a up to, not including, b), counted from 0.
    #[arg(long, value_name = "A..B", value_parser = shoal_worker::swarm::slice::parse_range)]
    layers: std::ops::Range<u32>,
    /// Where to write the span file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub async fn run(args: SwarmArgs) -> anyhow::Result<()> {
    match args.command {
        SwarmCommand::Slice(a) => {
            let out = a.out.clone();
            let span = tokio::task::spawn_blocking(move || {
                shoal_worker::swarm::slice::slice(&a.gguf, a.layers, &a.out)
            })
            .await??;
            println!(
                "wrote {}: layers {}..{} of {} (model {})",
                out.display(),
                span.start,
                span.end,
                span.total,
                &span.fingerprint[..16]
            );
            Ok(())
        }
    }
}

/// One sample of the gateway's `/metrics`: its name, labels and value.
struct Sample<'a> {
    name: &'a str,
    labels: BTreeMap<&'a str, &'a str>,
    value: f64,
}

/// Reads one exposition line (`name{k="v",…} value`); comments and other lines give `None`.
/// The swarm's label values are hex digits, numbers and `wrk_<id>`: no escapes to undo.
fn sample(line: &str) -> Option<Sample<'_>> {
    let (head, value) = line.rsplit_once(' ')?;
    let (name, labels) = match head.split_once('{') {
        Some((name, rest)) => (name, rest.strip_suffix('}')?),
        None => (head, ""),
    };
    let labels = labels
        .split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            Some((k, v.trim_matches('"')))
        })
        .collect();
    Some(Sample {
        name,
        labels,
        value: value.parse().ok()?,
    })
}

/// `shoal admin swarm status`: the ring as the gateway's `/metrics` shows it, one model per
/// block: its coverage or gaps, then its span nodes in layer order with their sessions.
pub async fn status(gateway: &str, metrics_token: Option<&str>) -> anyhow::Result<ExitCode> {
    let url = format!("{}/metrics", gateway.trim_end_matches('/'));
    let mut request = reqwest::Client::new().get(&url);
    if let Some(token) = metrics_token {
        request = request.bearer_auth(token);
    }
    let text = request
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .with_context(|| format!("reading {url}"))?
        .text()
        .await?;
    let report = render_status(&text);
    print!("{}", report.text);
    Ok(if report.covered {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

struct StatusReport {
    text: String,
    covered: bool,
}

fn render_status(metrics: &str) -> StatusReport {
    let samples: Vec<Sample> = metrics
        .lines()
        .filter(|l| l.starts_with("shoal_swarm_"))
        .filter_map(sample)
        .collect();
    let of = |name: &'static str| samples.iter().filter(move |s| s.name == name);
    let label = |s: &Sample, k: &str| s.labels.get(k).copied().unwrap_or("?").to_owned();
    let number = |s: &Sample, k: &str| label(s, k).parse::<u32>().unwrap_or(0);
    let mut out = String::new();
    let mut covered = false;
    for model in of("shoal_swarm_covered") {
        let fp = label(model, "fingerprint");
        let gaps: Vec<String> = of("shoal_swarm_gap")
            .filter(|g| label(g, "fingerprint") == fp)
            .map(|g| format!("{}..{}", label(g, "start"), label(g, "end")))
            .collect();
        let state = match (model.value > 0.0, gaps.is_empty()) {
            (true, _) => "covered".to_owned(),
            (false, true) => "not covered (spans do not abut)".to_owned(),
            (false, false) => format!("gaps {}", gaps.join(" ")),
        };
        covered |= model.value > 0.0;
        let short = fp.get(..16).unwrap_or(&fp);
        let layers = label(model, "layers");
        out += &format!("model {short}  layers {layers}  {state}\n");
        let mut nodes: Vec<(u32, u32, String, f64, f64)> = of("shoal_swarm_node_sessions")
            .filter(|n| label(n, "fingerprint") == fp)
            .map(|n| {
                let capacity = of("shoal_swarm_node_capacity")
                    .find(|c| c.labels == n.labels)
                    .map_or(0.0, |c| c.value);
                let worker = label(n, "worker");
                (
                    number(n, "start"),
                    number(n, "end"),
                    worker,
                    n.value,
                    capacity,
                )
            })
            .collect();
        nodes.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
        for (start, end, worker, sessions, capacity) in nodes {
            out += &format!("  {start}..{end}\t{worker}\tsessions {sessions}/{capacity}\n");
        }
    }
    if out.is_empty() {
        out = "no span nodes\n".into();
    }
    StatusReport { text: out, covered }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_shows_gaps_and_nodes_in_layer_order() {
        let fp = "ab".repeat(32);
        let metrics = format!(
            "# HELP shoal_swarm_covered x\n\
             shoal_swarm_covered{{fingerprint=\"{fp}\",layers=\"6\"}} 0\n\
             shoal_swarm_gap{{fingerprint=\"{fp}\",start=\"2\",end=\"4\"}} 2\n\
             shoal_swarm_node_sessions{{worker=\"wrk_9\",fingerprint=\"{fp}\",start=\"4\",end=\"6\",total=\"6\"}} 1\n\
             shoal_swarm_node_capacity{{worker=\"wrk_9\",fingerprint=\"{fp}\",start=\"4\",end=\"6\",total=\"6\"}} 2\n\
             shoal_swarm_node_sessions{{worker=\"wrk_3\",fingerprint=\"{fp}\",start=\"0\",end=\"2\",total=\"6\"}} 0\n\
             shoal_swarm_node_capacity{{worker=\"wrk_3\",fingerprint=\"{fp}\",start=\"0\",end=\"2\",total=\"6\"}} 2\n"
        );
        let report = render_status(&metrics);
        assert!(!report.covered);
        assert_eq!(
            report.text,
            "model abababababababab  layers 6  gaps 2..4\n  \
             0..2\twrk_3\tsessions 0/2\n  4..6\twrk_9\tsessions 1/2\n"
        );
        let covered = metrics.replace("layers=\"6\"} 0", "layers=\"6\"} 1");
        assert!(render_status(&covered).covered);
        assert_eq!(render_status("").text, "no span nodes\n");
    }
}
