#!/usr/bin/env python3
"""Ports stable-diffusion.cpp's CLI sources (examples/cli, examples/common) from the release that
the PyPI sdist `stable-diffusion-cpp-python` carries to the newer C API of the sources that
`diffusion-rs-sys` vendors, so the CLI links against the very library the engine uses.

    bench/sd/port-cli.py EXAMPLES_DIR      # edits EXAMPLES_DIR/{cli,common} in place

The edits are only those the API change forces; each one must match exactly once, or the script
fails (a different sdist release needs a look, not a guess):
 - `sd_tiling_params_t` gained `temporal_tiling` and `extra_tiling_args`;
 - `sd_ctx_params_t` lost `vae_decode_only`, `free_params_immediately`, `offload_params_to_cpu`
   and the keep-on-CPU flags and gained others: the positional initializer (which would shift
   silently) becomes `sd_ctx_params_init` plus named assignments of the fields that remain;
 - `generate_video` returns its frames through an out-parameter;
 - `new_upscaler_ctx` lost `offload_params_to_cpu` and gained two backend names.
"""

import re
import sys
from pathlib import Path

CTX_FIELDS = """
    sd_ctx_params_t sd_ctx_params;
    sd_ctx_params_init(&sd_ctx_params);
    (void)vae_decode_only;
    (void)free_params_immediately;
    sd_ctx_params.model_path                      = model_path.c_str();
    sd_ctx_params.clip_l_path                     = clip_l_path.c_str();
    sd_ctx_params.clip_g_path                     = clip_g_path.c_str();
    sd_ctx_params.clip_vision_path                = clip_vision_path.c_str();
    sd_ctx_params.t5xxl_path                      = t5xxl_path.c_str();
    sd_ctx_params.llm_path                        = llm_path.c_str();
    sd_ctx_params.llm_vision_path                 = llm_vision_path.c_str();
    sd_ctx_params.diffusion_model_path            = diffusion_model_path.c_str();
    sd_ctx_params.high_noise_diffusion_model_path = high_noise_diffusion_model_path.c_str();
    sd_ctx_params.vae_path                        = vae_path.c_str();
    sd_ctx_params.taesd_path                      = taesd_path.c_str();
    sd_ctx_params.control_net_path                = control_net_path.c_str();
    sd_ctx_params.embeddings                      = embedding_vec.data();
    sd_ctx_params.embedding_count                 = static_cast<uint32_t>(embedding_vec.size());
    sd_ctx_params.photo_maker_path                = photo_maker_path.c_str();
    sd_ctx_params.tensor_type_rules               = tensor_type_rules.c_str();
    sd_ctx_params.n_threads                       = n_threads;
    sd_ctx_params.wtype                           = wtype;
    sd_ctx_params.rng_type                        = rng_type;
    sd_ctx_params.sampler_rng_type                = sampler_rng_type;
    sd_ctx_params.prediction                      = prediction;
    sd_ctx_params.lora_apply_mode                 = lora_apply_mode;
    sd_ctx_params.enable_mmap                     = enable_mmap;
    sd_ctx_params.flash_attn                      = flash_attn;
    sd_ctx_params.diffusion_flash_attn            = diffusion_flash_attn;
    sd_ctx_params.tae_preview_only                = taesd_preview;
    sd_ctx_params.diffusion_conv_direct           = diffusion_conv_direct;
    sd_ctx_params.vae_conv_direct                 = vae_conv_direct;
    sd_ctx_params.circular_x                      = circular || circular_x;
    sd_ctx_params.circular_y                      = circular || circular_y;
    sd_ctx_params.force_sdxl_vae_conv_scale       = force_sdxl_vae_conv_scale;
    sd_ctx_params.chroma_use_dit_mask             = chroma_use_dit_mask;
    sd_ctx_params.chroma_use_t5_mask              = chroma_use_t5_mask;
    sd_ctx_params.chroma_t5_mask_pad              = chroma_t5_mask_pad;
    sd_ctx_params.qwen_image_zero_cond_t          = qwen_image_zero_cond_t;
    sd_ctx_params.max_vram                        = max_vram;
"""


def edit(path: Path, pattern: str, replacement: str, flags: int = 0) -> None:
    text = path.read_text()
    new, n = re.subn(pattern, lambda _: replacement, text, flags=flags)
    if n != 1:
        sys.exit(f"port-cli: {path.name}: expected one match of {pattern!r}, found {n}")
    path.write_text(new)


def main() -> None:
    ex = Path(sys.argv[1])
    edit(ex / "common" / "common.h",
         r"sd_tiling_params_t vae_tiling_params = \{false, 0, 0, 0\.5f, 0\.0f, 0\.0f\};",
         "sd_tiling_params_t vae_tiling_params = {false, false, 0, 0, 0.5f, 0.0f, 0.0f, nullptr};")
    edit(ex / "common" / "common.cpp",
         r"\n    sd_ctx_params_t sd_ctx_params = \{\n.*?\n    \};\n", CTX_FIELDS, re.S)
    edit(ex / "cli" / "main.cpp",
         r"sd_image_t\* generated_video\s*= generate_video\(sd_ctx\.get\(\), &vid_gen_params, &num_results\);",
         "sd_image_t* generated_video = nullptr;\n"
         "            generate_video(sd_ctx.get(), &vid_gen_params, &generated_video, &num_results, nullptr);")
    edit(ex / "cli" / "main.cpp",
         r"ctx_params\.offload_params_to_cpu,\s*\n\s*ctx_params\.diffusion_conv_direct,\s*\n"
         r"\s*ctx_params\.n_threads,\s*\n\s*gen_params\.upscale_tile_size\)",
         "ctx_params.diffusion_conv_direct, ctx_params.n_threads, gen_params.upscale_tile_size, "
         "nullptr, nullptr)")


if __name__ == "__main__":
    main()
