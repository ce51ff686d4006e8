//! The A1111 backend: each image job becomes one `POST {url}/sdapi/v1/txt2img`, the API that
//! AUTOMATIC1111, Forge/reForge, SD.Next, KoboldCpp and stable-diffusion.cpp's `sd-server`
//! speak. While it renders, `GET /sdapi/v1/progress` is polled for the step count; a cancel
//! sends `POST /sdapi/v1/interrupt`.
//!
//! The seed is always sent (the gateway always sets one): some servers never report back the
//! random seed they picked. An upstream's error body is never read into a message or a log:
//! it may quote the prompt.

use std::time::Duration;

use base64::Engine as _;
use futures::future::BoxFuture;
use reqwest::Url;
use serde::Deserialize;
use serde_json::json;
use shoal_protocol::worker::{ErrorCode, ImageJobRequest};
use shoal_worker::backend::JobEnd;
use shoal_worker::{ImageBackend, ImageJob, JobOutput};
use tokio_util::sync::CancellationToken;

/// How often the server's progress is asked for.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

pub struct A1111Backend {
    client: reqwest::Client,
    txt2img: Url,
    progress: Url,
    interrupt: Url,
    model: String,
    timeout: Duration,
}

impl A1111Backend {
    pub fn new(base: &str, model: &str, timeout: Duration) -> anyhow::Result<Self> {
        let mut base = Url::parse(base.trim())
            .map_err(|_| anyhow::anyhow!("--a1111-url {base:?} is not a URL"))?;
        anyhow::ensure!(
            matches!(base.scheme(), "http" | "https"),
            "--a1111-url must be an http(s):// URL"
        );
        let path = base.path().trim_end_matches('/').to_owned();
        base.set_path(&format!("{path}/"));
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        Ok(A1111Backend {
            client,
            txt2img: base.join("sdapi/v1/txt2img")?,
            progress: base.join("sdapi/v1/progress?skip_current_image=true")?,
            interrupt: base.join("sdapi/v1/interrupt")?,
            model: model.to_owned(),
            timeout,
        })
    }

    async fn render(
        &self,
        request: &ImageJobRequest,
        out: &mut JobOutput,
        cancel: &CancellationToken,
    ) -> JobEnd {
        let body = txt2img_body(request);
        let call = self
            .client
            .post(self.txt2img.clone())
            .timeout(self.timeout)
            .json(&body)
            .send();
        tokio::pin!(call);
        // The first poll one period in: an immediate first tick would still hold the request
        // back until the timer wheel's next millisecond.
        let first = tokio::time::Instant::now() + PROGRESS_EVERY;
        let mut ticks = tokio::time::interval_at(first, PROGRESS_EVERY);
        let response = loop {
            tokio::select! {
                r = &mut call => break r,
                _ = cancel.cancelled() => {
                    // Best effort: the server stops rendering what nobody waits for.
                    let _ = self.client.post(self.interrupt.clone()).timeout(Duration::from_secs(5)).send().await;
                    return failed(ErrorCode::Cancelled, false);
                }
                _ = ticks.tick() => {
                    if let Some((step, steps)) = self.poll_progress(request.steps).await {
                        if out.progress(step, steps).await.is_err() {
                            return failed(ErrorCode::Disconnected, false);
                        }
                    }
                }
            }
        };
        match response {
            Err(e) if e.is_timeout() => failed(ErrorCode::UpstreamTimeout, true),
            Err(_) => failed(ErrorCode::UpstreamUnavailable, true),
            Ok(r) if r.status().is_success() => image_of(r).await,
            Ok(r) if r.status().as_u16() == 429 || r.status().is_server_error() => {
                failed(ErrorCode::UpstreamUnavailable, true)
            }
            Ok(_) => failed(ErrorCode::UpstreamRejected, false),
        }
    }

    /// The server's step count for the render in progress, if it says.
    async fn poll_progress(&self, steps: u32) -> Option<(u32, u32)> {
        #[derive(Deserialize)]
        struct State {
            sampling_step: Option<u32>,
            sampling_steps: Option<u32>,
        }
        #[derive(Deserialize)]
        struct ProgressBody {
            state: Option<State>,
        }
        let body: ProgressBody = self
            .client
            .get(self.progress.clone())
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        let state = body.state?;
        let total = state.sampling_steps.filter(|n| *n > 0).unwrap_or(steps);
        Some((state.sampling_step?.min(total), total))
    }
}

/// The job in the txt2img request's field names: one image, the seed always given.
pub fn txt2img_body(r: &ImageJobRequest) -> serde_json::Value {
    json!({
        "prompt": r.prompt,
        "negative_prompt": r.negative_prompt,
        "width": r.width,
        "height": r.height,
        "steps": r.steps,
        "cfg_scale": r.cfg,
        "seed": r.seed,
        "batch_size": 1,
        "n_iter": 1,
        "send_images": true,
        "save_images": false,
    })
}

/// The first image of a txt2img answer, as standard base64 of a PNG.
async fn image_of(response: reqwest::Response) -> JobEnd {
    #[derive(Deserialize)]
    struct Txt2Img {
        #[serde(default)]
        images: Vec<String>,
    }
    let Ok(body) = response.json::<Txt2Img>().await else {
        return failed(ErrorCode::UpstreamUnavailable, true);
    };
    let Some(image) = body.images.into_iter().next() else {
        return failed(ErrorCode::InferenceFailed, true);
    };
    // Some servers answer a data URL rather than bare base64.
    let bare = match image.split_once(";base64,") {
        Some((_, b64)) => b64.to_owned(),
        None => image,
    };
    match base64::engine::general_purpose::STANDARD.decode(bare.as_bytes()) {
        Ok(png) if png.starts_with(b"\x89PNG\r\n\x1a\n") => JobEnd::Image { png_base64: bare },
        _ => failed(ErrorCode::InferenceFailed, true),
    }
}

fn failed(code: ErrorCode, retryable: bool) -> JobEnd {
    JobEnd::Failed { code, retryable }
}

impl ImageBackend for A1111Backend {
    fn model(&self) -> &str {
        &self.model
    }

    fn generate_image<'a>(
        &'a self,
        job: ImageJob,
        out: &'a mut JobOutput,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, JobEnd> {
        Box::pin(async move { self.render(&job.request, out, &cancel).await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_maps_every_field_and_always_sends_the_seed() {
        let r = ImageJobRequest {
            prompt: "p".into(),
            negative_prompt: "n".into(),
            width: 512,
            height: 768,
            steps: 20,
            cfg: 4.5,
            seed: 0,
        };
        let body = txt2img_body(&r);
        assert_eq!(body["prompt"], "p");
        assert_eq!(body["negative_prompt"], "n");
        assert_eq!(
            (body["width"].as_u64(), body["height"].as_u64()),
            (Some(512), Some(768))
        );
        assert_eq!(
            (body["steps"].as_u64(), body["cfg_scale"].as_f64()),
            (Some(20), Some(4.5))
        );
        assert_eq!(body["seed"].as_u64(), Some(0));
        assert_eq!(body["batch_size"].as_u64(), Some(1));
    }

    #[test]
    fn urls() {
        for base in ["http://127.0.0.1:7860", "http://127.0.0.1:7860/"] {
            let b = A1111Backend::new(base, "m", Duration::from_secs(1)).unwrap();
            assert_eq!(b.txt2img.as_str(), "http://127.0.0.1:7860/sdapi/v1/txt2img");
        }
        let b = A1111Backend::new("http://h/sd", "m", Duration::from_secs(1)).unwrap();
        assert_eq!(b.interrupt.as_str(), "http://h/sd/sdapi/v1/interrupt");
        assert!(A1111Backend::new("ftp://h", "m", Duration::from_secs(1)).is_err());
    }
}
