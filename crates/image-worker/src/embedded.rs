//! The embedded backend: stable-diffusion.cpp in-process, through `shoal_sdcpp::Engine`
//! (the `sd` feature). One engine, loaded once; each job renders on a blocking thread, its
//! steps reported as progress, a cancel checked by the engine between steps.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use base64::Engine as _;
use futures::future::BoxFuture;
use shoal_protocol::worker::ErrorCode;
use shoal_sdcpp::{Engine, SdError};
use shoal_worker::backend::JobEnd;
use shoal_worker::{ImageBackend, ImageJob, JobOutput};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub struct EmbeddedBackend {
    engine: Arc<Engine>,
    model: String,
}

impl EmbeddedBackend {
    /// Loads the checkpoint (slow: call it on a blocking thread).
    pub fn load(path: &Path, threads: usize, model: String) -> anyhow::Result<Self> {
        let engine = Engine::load(path, threads)
            .map_err(|e| anyhow::anyhow!("cannot load {}: {e:?}", path.display()))?;
        Ok(EmbeddedBackend {
            engine: Arc::new(engine),
            model,
        })
    }

    async fn render(
        &self,
        job: ImageJob,
        out: &mut JobOutput,
        cancel: CancellationToken,
    ) -> JobEnd {
        let stop = Arc::new(AtomicBool::new(false));
        // One message per sampling step of this job: bounded by its `steps`.
        let (steps_tx, mut steps_rx) = mpsc::unbounded_channel::<(u32, u32)>();
        let engine = Arc::clone(&self.engine);
        let flag = Arc::clone(&stop);
        let mut rendering = tokio::task::spawn_blocking(move || {
            let mut progress = |step, steps| {
                let _ = steps_tx.send((step, steps));
            };
            engine.generate(&job.request, &mut progress, &flag)
        });
        let result = loop {
            tokio::select! {
                r = &mut rendering => break r,
                Some((step, steps)) = steps_rx.recv() => {
                    if out.progress(step, steps).await.is_err() {
                        stop.store(true, Ordering::SeqCst);
                    }
                }
                _ = cancel.cancelled(), if !stop.load(Ordering::SeqCst) => {
                    stop.store(true, Ordering::SeqCst);
                }
            }
        };
        match result {
            Ok(Ok(png)) => JobEnd::Image {
                png_base64: base64::engine::general_purpose::STANDARD.encode(png),
            },
            Ok(Err(SdError::Cancelled)) => failed(ErrorCode::Cancelled),
            Ok(Err(_)) | Err(_) => failed(ErrorCode::InferenceFailed),
        }
    }
}

fn failed(code: ErrorCode) -> JobEnd {
    JobEnd::Failed {
        code,
        retryable: false,
    }
}

impl ImageBackend for EmbeddedBackend {
    fn model(&self) -> &str {
        &self.model
    }

    fn generate_image<'a>(
        &'a self,
        job: ImageJob,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd> {
        Box::pin(self.render(job, out, cancel))
    }
}
