// ld_prefix.h renames every symbol the vendored libdeflate (libdeflate/)
// defines or shares, so that it can neither resolve to nor clash with a
// system libdeflate, shared or static, linked into the same binary. Every
// file that includes libdeflate's sources includes this first;
// TestNoSystemLibdeflate checks the binary.
#ifndef BWLD_PREFIX_H
#define BWLD_PREFIX_H

#define libdeflate_aligned_free            bwld_aligned_free
#define libdeflate_aligned_malloc          bwld_aligned_malloc
#define libdeflate_alloc_decompressor      bwld_alloc_decompressor
#define libdeflate_alloc_decompressor_ex   bwld_alloc_decompressor_ex
#define libdeflate_arm_cpu_features        bwld_arm_cpu_features
#define libdeflate_assertion_failed        bwld_assertion_failed
#define libdeflate_deflate_decompress      bwld_deflate_decompress
#define libdeflate_deflate_decompress_ex   bwld_deflate_decompress_ex
#define libdeflate_default_free_func       bwld_default_free_func
#define libdeflate_default_malloc_func     bwld_default_malloc_func
#define libdeflate_free_decompressor       bwld_free_decompressor
#define libdeflate_init_arm_cpu_features   bwld_init_arm_cpu_features
#define libdeflate_init_x86_cpu_features   bwld_init_x86_cpu_features
#define libdeflate_set_memory_allocator    bwld_set_memory_allocator
#define libdeflate_x86_cpu_features        bwld_x86_cpu_features

#endif
