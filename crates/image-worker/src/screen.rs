//! The semantic second opinion before rendering: the checkpoint's own CLIP text encoder
//! embeds the prompt and compares it with the policy's concepts (`shoal-prompt-clip`). A
//! prompt near a concept never reaches the backend: the job fails with `prompt_refused`, which
//! the gateway answers as a blocked prompt (400, the hold voided). The gateway's lexical check
//! has already run; this one catches the paraphrases its lexicons miss.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use futures::future::BoxFuture;
use shoal_prompt_clip::{ConceptFile, PromptConcepts, TextEncoder};
use shoal_protocol::worker::ErrorCode;
use shoal_worker::{ImageBackend, ImageJob, JobEnd, JobOutput};
use tokio_util::sync::CancellationToken;

/// A backend whose jobs pass the prompt check first.
pub struct Screened {
    inner: Arc<dyn ImageBackend>,
    concepts: Arc<PromptConcepts>,
}

impl Screened {
    /// Loads the text encoder (an SD 1.x checkpoint or a diffusers `text_encoder` file) and
    /// embeds the concept file's phrases with it. Blocking: seconds for a real encoder.
    pub fn load(
        inner: Arc<dyn ImageBackend>,
        encoder: &Path,
        concepts: &Path,
    ) -> anyhow::Result<Screened> {
        let file = ConceptFile::load(concepts)
            .with_context(|| format!("the prompt concept file {}", concepts.display()))?;
        let encoder = TextEncoder::load(encoder)
            .with_context(|| format!("the prompt encoder {}", encoder.display()))?;
        let concepts = PromptConcepts::new(encoder, &file).context("embedding the concepts")?;
        Ok(Screened::new(inner, concepts))
    }

    pub fn new(inner: Arc<dyn ImageBackend>, concepts: PromptConcepts) -> Screened {
        Screened {
            inner,
            concepts: Arc::new(concepts),
        }
    }
}

/// Refuses `job`'s prompt (`Some`), or lets it through; a check that cannot run refuses
/// too (fail closed), with a code that says so.
async fn refusal(concepts: &Arc<PromptConcepts>, job: &ImageJob) -> Option<ErrorCode> {
    let concepts = Arc::clone(concepts);
    let prompt = job.request.prompt.clone();
    match tokio::task::spawn_blocking(move || concepts.check(&prompt)).await {
        Ok(Ok(None)) => None,
        Ok(Ok(Some(_))) => {
            tracing::info!(job_id = %job.id, "the prompt check refused a job before rendering");
            Some(ErrorCode::PromptRefused)
        }
        Ok(Err(e)) => {
            // Candle's errors name shapes and operations, never the text.
            tracing::error!(job_id = %job.id, error = %e, "the prompt check failed; the job is refused");
            Some(ErrorCode::InferenceFailed)
        }
        Err(_) => Some(ErrorCode::WorkerInternalError),
    }
}

impl ImageBackend for Screened {
    fn model(&self) -> &str {
        self.inner.model()
    }

    fn generate_image<'a>(
        &'a self,
        job: ImageJob,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd> {
        Box::pin(async move {
            match refusal(&self.concepts, &job).await {
                None => self.inner.generate_image(job, out, cancel).await,
                Some(code) => JobEnd::Failed {
                    code,
                    retryable: false,
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use shoal_prompt_clip::{tiny, EncoderShape};
    use shoal_protocol::worker::ImageJobRequest;

    use super::*;

    /// Counts the jobs that reach it and "renders" each as an empty PNG.
    #[derive(Default)]
    struct Counting(AtomicUsize);

    impl ImageBackend for Counting {
        fn model(&self) -> &str {
            "counting"
        }

        fn generate_image<'a>(
            &'a self,
            _job: ImageJob,
            _out: &'a mut JobOutput,
            _cancel: CancellationToken,
        ) -> BoxFuture<'a, JobEnd> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async {
                JobEnd::Image {
                    png_base64: String::new(),
                }
            })
        }
    }

    fn job(prompt: &str) -> ImageJob {
        ImageJob {
            id: "job_1".into(),
            model: "counting".into(),
            request: ImageJobRequest {
                prompt: prompt.into(),
                negative_prompt: String::new(),
                width: 512,
                height: 512,
                steps: 10,
                cfg: 4.0,
                seed: 1,
            },
        }
    }

    #[tokio::test]
    async fn a_prompt_at_a_concept_is_refused_before_the_renderer_sees_it() {
        let dir = std::env::temp_dir().join(format!("shoal-screen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (encoder, concepts) = (dir.join("enc.safetensors"), dir.join("concepts.json"));
        tiny::write(&encoder, EncoderShape::tiny(), "text_model", 7).unwrap();
        // A seeded random encoder has no semantics: the concept is the refused prompt itself,
        // and only a prompt at (almost) the same point is refused.
        let refused = "a forbidden test phrase";
        std::fs::write(
            &concepts,
            format!(
                r#"{{"concepts": [{{"name": "t", "threshold": 0.999, "phrases": ["{refused}"]}}]}}"#
            ),
        )
        .unwrap();
        let inner = Arc::new(Counting::default());
        let screened = Screened::load(inner.clone(), &encoder, &concepts).unwrap();
        let (tx, _rx) = tokio::sync::mpsc::channel(8);
        let mut out = JobOutput::new("job_1".into(), tx);
        let end = screened
            .generate_image(job(refused), &mut out, CancellationToken::new())
            .await;
        assert!(matches!(
            end,
            JobEnd::Failed {
                code: ErrorCode::PromptRefused,
                retryable: false
            }
        ));
        assert_eq!(inner.0.load(Ordering::SeqCst), 0, "never rendered");
        let end = screened
            .generate_image(
                job("a lighthouse at dawn"),
                &mut out,
                CancellationToken::new(),
            )
            .await;
        assert!(matches!(end, JobEnd::Image { .. }));
        assert_eq!(inner.0.load(Ordering::SeqCst), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
