# ruff: noqa
QUANTIZATION_CHOICES = ["awq", "fp8", "gptq"]

add_quantization_method_choices = QUANTIZATION_CHOICES.extend
