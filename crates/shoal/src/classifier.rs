//! `shoal classifier`: the files of the image output classifier (the tiny test checker, the
//! concepts a checker carries, image embeddings for new concepts), and the classifier
//! `serve` loads. docs/image-classifier.md is the operator's page.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, Subcommand};
use shoal_classifier::{concepts::ConceptFile, model::Checker, tiny, Classifier};
use shoal_gateway::FileConfig;
use shoal_images::{OutputCheck, Unconfigured};

#[derive(Args)]
pub struct ClassifierArgs {
    #[command(subcommand)]
    command: ClassifierCommand,
}

#[derive(Subcommand)]
enum ClassifierCommand {
    /// Write the tiny random-weight test checker (checker.safetensors: the published file's
    /// layout at small sizes) and its concept file (concepts.json, which flags nothing)
    /// into a folder.
    MakeTest {
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Print, as a concept file (JSON), the concepts a checker file carries: its
    /// concept_embeds as `adult`, its special_care_embeds as `minor`, with their thresholds.
    Concepts {
        #[arg(long, value_name = "FILE")]
        weights: PathBuf,
    },
    /// Print each PNG's embedding in the checker's concept space, one JSON array per line
    /// (a concept made from example images).
    Embed {
        #[arg(long, value_name = "FILE")]
        weights: PathBuf,
        #[arg(required = true, value_name = "PNG")]
        images: Vec<PathBuf>,
    },
}

pub async fn run(args: ClassifierArgs) -> anyhow::Result<ExitCode> {
    tokio::task::spawn_blocking(move || command(args.command)).await??;
    Ok(ExitCode::SUCCESS)
}

fn command(command: ClassifierCommand) -> anyhow::Result<()> {
    match command {
        ClassifierCommand::MakeTest { out, seed } => {
            let (weights, concepts) = write_test(&out, seed)?;
            println!("{}", weights.display());
            println!("{}", concepts.display());
        }
        ClassifierCommand::Concepts { weights } => {
            let checker = Checker::load(&weights)?;
            println!(
                "{}",
                serde_json::to_string_pretty(checker.carried_concepts())?
            );
        }
        ClassifierCommand::Embed { weights, images } => {
            let checker = Checker::load(&weights)?;
            for path in images {
                let png = std::fs::read(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let embedding = checker
                    .embed_png(&png)
                    .with_context(|| format!("{}", path.display()))?;
                println!("{}", serde_json::to_string(&embedding)?);
            }
        }
    }
    Ok(())
}

/// The tiny checker and a concept file of its own concepts, in `dir`.
pub fn write_test(dir: &Path, seed: u64) -> anyhow::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    let weights = dir.join("checker.safetensors");
    tiny::write(&weights, seed)?;
    let carried: ConceptFile = Checker::load(&weights)?.carried_concepts().clone();
    let concepts = dir.join("concepts.json");
    std::fs::write(&concepts, serde_json::to_vec_pretty(&carried)?)
        .with_context(|| format!("cannot write {}", concepts.display()))?;
    Ok((weights, concepts))
}

/// Where the classifier's files are, from flags and the config file.
pub struct ClassifierPaths {
    pub weights: Option<PathBuf>,
    pub concepts: Option<PathBuf>,
}

/// The output check `serve` runs: the classifier when configured (the tiny test checker for
/// `--demo` when nothing is), else [`Unconfigured`], which answers image requests 503.
pub async fn output_check(
    paths: ClassifierPaths,
    file: &FileConfig,
    demo_dir: Option<&Path>,
) -> anyhow::Result<Arc<dyn OutputCheck>> {
    let weights = paths.weights.or(file.image_classifier_path.clone());
    let concepts = paths.concepts.or(file.image_concepts_path.clone());
    let (weights, concepts) = match (weights, concepts, demo_dir) {
        (Some(w), Some(c), _) => (w, c),
        (None, None, Some(dir)) => write_test(dir, 1)?,
        (None, None, None) => {
            tracing::warn!("no image classifier is configured (image_classifier_path, image_concepts_path): image generation answers 503");
            return Ok(Arc::new(Unconfigured));
        }
        _ => anyhow::bail!(
            "the image classifier needs both its checker file (image_classifier_path, \
             --image-classifier) and its concept file (image_concepts_path, --image-concepts)"
        ),
    };
    let threads = file
        .image_classifier_threads
        .unwrap_or_else(default_threads);
    let classifier = tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let classifier = Classifier::open(&weights, &concepts, threads)?;
        let sizes = classifier.checker().sizes();
        let (adult, minor) = classifier.concepts().len();
        tracing::info!(
            hidden = sizes.hidden,
            layers = sizes.layers,
            adult,
            minor,
            threads,
            load_ms = started.elapsed().as_millis() as u64,
            "image classifier loaded"
        );
        anyhow::Ok(classifier)
    })
    .await??;
    Ok(Arc::new(classifier))
}

/// Half the cores: a check at full tilt leaves the other half to chat.
fn default_threads() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cpus / 2).max(1)
}
