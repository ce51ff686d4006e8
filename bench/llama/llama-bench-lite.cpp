// llama-bench-lite: llama.cpp's own prompt-processing and generation speed on a GGUF, measured
// the way llama-bench measures it, for when llama-bench's source is not at hand.
//
// The llama.cpp that llama-cpp-sys-2 vendors from crates.io has no tools/llama-bench source (its
// package keeps only the tool's README), so bench/llama/run builds this driver instead, against
// the same vendored libllama/ggml with the same CMake options as the crate. It does what
// llama-bench's pp/tg tests do and nothing else:
//
//   * one context per test, n_ctx = n_prompt + n_gen + depth, n_batch 2048, n_ubatch 512,
//     n_threads = n_threads_batch = -t, F16 K/V cache, flash attention "auto", the model mmapped
//     with the library's default model parameters;
//   * a ggml CPU threadpool (polling level 50) attached to the context, as llama-bench does
//     (--no-threadpool leaves ggml to make its own per graph, as an embedding application does);
//   * pp test: random token ids (BOS first when the vocabulary adds one), decoded in n_batch
//     chunks with llama_batch_get_one (logits for the last token only), then llama_synchronize;
//   * tg test: one token per llama_decode, n_gen times, each followed by llama_synchronize; the
//     next token is a random id (no sampling: this is the model's forward pass alone);
//   * a warm-up run first (the whole prompt for pp, one token for tg), then -r repetitions, the
//     memory (KV cache) cleared before each; with -d, `depth` random tokens are decoded into the
//     cache before each timed run and are not timed;
//   * tokens/s per repetition = tokens * 1e9 / elapsed ns; reported: their mean and stddev.
//
// Output: one JSON object per test on stdout (jsonl), with the fields llama-bench's jsonl output
// uses for the same things (n_prompt, n_gen, n_depth, n_threads, avg_ts, stddev_ts, samples_ns,
// samples_ts), so bench/llama/run reads either tool.
//
//   llama-bench-lite -m FILE [-p 512] [-n 128] [-d 0] [-t N] [-r 5] [--no-warmup] [--no-threadpool]

#include "ggml-cpu.h"
#include "ggml.h"
#include "llama.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
    std::string model;
    int n_prompt = 512;
    int n_gen = 128;
    int n_depth = 0;
    int n_threads = 0;
    int reps = 5;
    int n_batch = 2048;
    int n_ubatch = 512;
    int poll = 50;
    bool warmup = true;
    bool threadpool = true;
    bool verbose = false;
};

uint64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void quiet_log(ggml_log_level level, const char * text, void * verbose) {
    if (verbose != nullptr || level == GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

[[noreturn]] void usage(const char * argv0, const char * why) {
    if (why != nullptr) {
        fprintf(stderr, "%s: %s\n", argv0, why);
    }
    fprintf(stderr,
            "usage: %s -m FILE [-p N_PROMPT] [-n N_GEN] [-d DEPTH] [-t THREADS] [-r REPS]\n"
            "          [-b N_BATCH] [-ub N_UBATCH] [--poll 0..100] [--no-warmup] [--no-threadpool] [-v]\n",
            argv0);
    exit(2);
}

Options parse(int argc, char ** argv) {
    Options o;
    o.n_threads = (int) std::max(1u, std::thread::hardware_concurrency());
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&]() -> const char * {
            if (i + 1 >= argc) {
                usage(argv[0], ("missing value after " + a).c_str());
            }
            return argv[++i];
        };
        if (a == "-m" || a == "--model") {
            o.model = value();
        } else if (a == "-p" || a == "--n-prompt") {
            o.n_prompt = atoi(value());
        } else if (a == "-n" || a == "--n-gen") {
            o.n_gen = atoi(value());
        } else if (a == "-d" || a == "--n-depth") {
            o.n_depth = atoi(value());
        } else if (a == "-t" || a == "--threads") {
            o.n_threads = atoi(value());
        } else if (a == "-r" || a == "--repetitions") {
            o.reps = atoi(value());
        } else if (a == "-b" || a == "--batch-size") {
            o.n_batch = atoi(value());
        } else if (a == "-ub" || a == "--ubatch-size") {
            o.n_ubatch = atoi(value());
        } else if (a == "--poll") {
            o.poll = atoi(value());
        } else if (a == "--no-warmup") {
            o.warmup = false;
        } else if (a == "--no-threadpool") {
            o.threadpool = false;
        } else if (a == "-v" || a == "--verbose") {
            o.verbose = true;
        } else if (a == "-h" || a == "--help") {
            usage(argv[0], nullptr);
        } else {
            usage(argv[0], ("unknown argument " + a).c_str());
        }
    }
    if (o.model.empty()) {
        usage(argv[0], "-m is required");
    }
    if (o.n_prompt < 0 || o.n_gen < 0 || o.n_depth < 0 || o.n_threads < 1 || o.reps < 1 ||
        o.n_batch < 1 || o.n_ubatch < 1) {
        usage(argv[0], "counts must be positive");
    }
    return o;
}

// Decodes n_prompt random tokens in n_batch chunks (llama-bench's test_prompt).
bool run_prompt(llama_context * ctx, const llama_vocab * vocab, int n_prompt, int n_batch) {
    const int32_t n_vocab = llama_vocab_n_tokens(vocab);
    std::vector<llama_token> tokens(n_batch);
    int n_processed = 0;
    while (n_processed < n_prompt) {
        const int n_tokens = std::min(n_prompt - n_processed, n_batch);
        tokens[0] = n_processed == 0 && llama_vocab_get_add_bos(vocab) ? llama_vocab_bos(vocab)
                                                                       : std::rand() % n_vocab;
        for (int i = 1; i < n_tokens; i++) {
            tokens[i] = std::rand() % n_vocab;
        }
        if (llama_decode(ctx, llama_batch_get_one(tokens.data(), n_tokens)) != 0) {
            return false;
        }
        n_processed += n_tokens;
    }
    llama_synchronize(ctx);
    return true;
}

// Decodes n_gen tokens one at a time (llama-bench's test_gen).
bool run_gen(llama_context * ctx, const llama_vocab * vocab, int n_gen) {
    const int32_t n_vocab = llama_vocab_n_tokens(vocab);
    llama_token token = llama_vocab_get_add_bos(vocab) ? llama_vocab_bos(vocab) : std::rand() % n_vocab;
    for (int i = 0; i < n_gen; i++) {
        if (llama_decode(ctx, llama_batch_get_one(&token, 1)) != 0) {
            return false;
        }
        llama_synchronize(ctx);
        token = std::rand() % n_vocab;
    }
    return true;
}

struct Test {
    const char * kind;  // "pp" or "tg"
    int n_prompt;
    int n_gen;
};

}  // namespace

int main(int argc, char ** argv) {
    const Options o = parse(argc, argv);
    llama_log_set(quiet_log, o.verbose ? (void *) 1 : nullptr);
    llama_backend_init();

    llama_model_params mparams = llama_model_default_params();
    mparams.n_gpu_layers = 0;  // CPU only (this build has no GPU backend anyway)
    llama_model * model = llama_model_load_from_file(o.model.c_str(), mparams);
    if (model == nullptr) {
        fprintf(stderr, "could not load %s\n", o.model.c_str());
        return 1;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    char desc[256] = {0};
    llama_model_desc(model, desc, sizeof(desc));

    std::vector<Test> tests;
    if (o.n_prompt > 0) {
        tests.push_back({"pp", o.n_prompt, 0});
    }
    if (o.n_gen > 0) {
        tests.push_back({"tg", 0, o.n_gen});
    }

    for (const Test & t : tests) {
        llama_context_params cparams = llama_context_default_params();
        cparams.n_ctx = (uint32_t) (t.n_prompt + t.n_gen + o.n_depth);
        cparams.n_batch = (uint32_t) o.n_batch;
        cparams.n_ubatch = (uint32_t) o.n_ubatch;
        cparams.n_threads = o.n_threads;
        cparams.n_threads_batch = o.n_threads;
        cparams.type_k = GGML_TYPE_F16;
        cparams.type_v = GGML_TYPE_F16;
        cparams.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO;
        cparams.no_perf = true;
        llama_context * ctx = llama_init_from_model(model, cparams);
        if (ctx == nullptr) {
            fprintf(stderr, "could not create a context\n");
            return 1;
        }

        ggml_threadpool * threadpool = nullptr;
        if (o.threadpool) {
            ggml_threadpool_params tpp = ggml_threadpool_params_default(o.n_threads);
            tpp.poll = (uint32_t) o.poll;
            threadpool = ggml_threadpool_new(&tpp);
            if (threadpool == nullptr) {
                fprintf(stderr, "could not create a threadpool\n");
                return 1;
            }
            llama_attach_threadpool(ctx, threadpool, nullptr);
        }

        llama_memory_t mem = llama_get_memory(ctx);
        if (o.warmup) {
            bool ok = t.n_prompt > 0 ? run_prompt(ctx, vocab, t.n_prompt, o.n_batch) : run_gen(ctx, vocab, 1);
            if (!ok) {
                fprintf(stderr, "warm-up decode failed\n");
                return 1;
            }
        }

        std::vector<uint64_t> samples_ns;
        for (int r = 0; r < o.reps; r++) {
            llama_memory_clear(mem, false);
            if (o.n_depth > 0 && !run_prompt(ctx, vocab, o.n_depth, o.n_batch)) {
                fprintf(stderr, "depth decode failed\n");
                return 1;
            }
            const uint64_t t0 = now_ns();
            const bool ok = t.n_prompt > 0 ? run_prompt(ctx, vocab, t.n_prompt, o.n_batch)
                                           : run_gen(ctx, vocab, t.n_gen);
            const uint64_t dt = now_ns() - t0;
            if (!ok) {
                fprintf(stderr, "decode failed\n");
                return 1;
            }
            samples_ns.push_back(dt);
        }

        const int n_tokens = t.n_prompt + t.n_gen;
        std::vector<double> ts;
        for (uint64_t ns : samples_ns) {
            ts.push_back(1e9 * n_tokens / (double) ns);
        }
        double avg_ns = 0;
        for (uint64_t ns : samples_ns) {
            avg_ns += (double) ns / (double) samples_ns.size();
        }
        double mean = 0;
        for (double v : ts) {
            mean += v;
        }
        mean /= (double) ts.size();
        double var = 0;
        for (double v : ts) {
            var += (v - mean) * (v - mean);
        }
        const double sd = ts.size() > 1 ? std::sqrt(var / (double) (ts.size() - 1)) : 0.0;

        std::string ns_list;
        std::string ts_list;
        for (size_t i = 0; i < ts.size(); i++) {
            char buf[64];
            snprintf(buf, sizeof(buf), "%s%llu", i ? ", " : "", (unsigned long long) samples_ns[i]);
            ns_list += buf;
            snprintf(buf, sizeof(buf), "%s%.6f", i ? ", " : "", ts[i]);
            ts_list += buf;
        }
        printf("{\"tool\": \"llama-bench-lite\", \"model_type\": \"%s\", \"model_size\": %llu, "
               "\"model_n_params\": %llu, \"test\": \"%s%d\", \"n_prompt\": %d, \"n_gen\": %d, "
               "\"n_depth\": %d, \"n_batch\": %d, \"n_ubatch\": %d, \"n_threads\": %d, "
               "\"threadpool\": %s, \"avg_ns\": %.0f, \"avg_ts\": %.6f, \"stddev_ts\": %.6f, "
               "\"samples_ns\": [%s], \"samples_ts\": [%s]}\n",
               desc, (unsigned long long) llama_model_size(model),
               (unsigned long long) llama_model_n_params(model), t.kind, n_tokens, t.n_prompt,
               t.n_gen, o.n_depth, o.n_batch, o.n_ubatch, o.n_threads,
               o.threadpool ? "true" : "false", avg_ns, mean, sd, ns_list.c_str(),
               ts_list.c_str());
        fflush(stdout);

        llama_free(ctx);
        if (threadpool != nullptr) {
            ggml_threadpool_free(threadpool);
        }
    }

    llama_model_free(model);
    llama_backend_free();
    return 0;
}
