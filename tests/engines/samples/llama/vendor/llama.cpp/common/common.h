// Excerpt shaped like llama.cpp's common/common.h: the defaults of the parameters
// that the sample's arg.cpp handlers set.
#pragma once

#include <string>
#include <vector>

struct common_params_sampling {
    float temp = 0.80f; // not set by any sample option
};

struct common_params {
    int32_t n_ctx        =  4096; // context size
    int32_t n_parallel   =     1; // the server overrides it in arg.cpp
    int32_t n_gpu_layers =    -1;
    bool    cont_batching  = true;
    bool    mmproj_use_gpu = true;

    enum llama_flash_attn_type flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO;
    ggml_type cache_type_k = GGML_TYPE_F16;

    std::vector<common_adapter_lora_info> lora_adapters; // no initializer: none
    std::string prompt = "";

    common_params_sampling sampling;

    bool has_prompt() const { return !prompt.empty(); }
};
