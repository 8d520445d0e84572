import paddle
for f in ['FLAGS_use_mkldnn','FLAGS_check_nan_inf','FLAGS_cudnn_deterministic','FLAGS_embedding_deterministic','FLAGS_eager_delete_tensor_gb','FLAGS_fraction_of_gpu_memory_to_use','FLAGS_allocator_strategy','FLAGS_call_stack_level','FLAGS_benchmark','FLAGS_cpu_deterministic','FLAGS_set_to_1d','FLAGS_enable_pir_api','FLAGS_use_cuda_managed_memory','FLAGS_conv_workspace_size_limit']:
    try: print(paddle.get_flags(f))
    except Exception as e: print(f, type(e).__name__, e)
try: paddle.set_flags({'FLAGS_nope': 1})
except Exception as e: print(type(e).__name__, e)
try: paddle.get_flags(3)
except Exception as e: print(type(e).__name__, e)
try: paddle.set_flags(3)
except Exception as e: print(type(e).__name__, e)
print(paddle.get_flags(['FLAGS_benchmark','FLAGS_call_stack_level']))
