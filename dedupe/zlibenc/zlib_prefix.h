//go:build cgo

// zlib_prefix.h renames every symbol the vendored zlib (zlib/) defines,
// so that it can neither resolve to nor clash with a system libz, shared
// or static, linked into the same binary. zlib's own Z_PREFIX would
// leave z_errmsg as it is and share the z_ names with any other
// prefixed copy. Every file that includes zlib's headers includes this
// first; TestNoSystemZlib checks the binary.
#ifndef BWZ_PREFIX_H
#define BWZ_PREFIX_H

#define _dist_code             bwz__dist_code
#define _length_code           bwz__length_code
#define _tr_align              bwz__tr_align
#define _tr_flush_bits         bwz__tr_flush_bits
#define _tr_flush_block        bwz__tr_flush_block
#define _tr_init               bwz__tr_init
#define _tr_stored_block       bwz__tr_stored_block
#define _tr_tally              bwz__tr_tally
#define adler32                bwz_adler32
#define adler32_combine        bwz_adler32_combine
#define adler32_combine64      bwz_adler32_combine64
#define adler32_z              bwz_adler32_z
#define crc32                  bwz_crc32
#define crc32_combine          bwz_crc32_combine
#define crc32_combine64        bwz_crc32_combine64
#define crc32_combine_gen      bwz_crc32_combine_gen
#define crc32_combine_gen64    bwz_crc32_combine_gen64
#define crc32_combine_op       bwz_crc32_combine_op
#define crc32_z                bwz_crc32_z
#define deflate                bwz_deflate
#define deflateBound           bwz_deflateBound
#define deflateCopy            bwz_deflateCopy
#define deflateEnd             bwz_deflateEnd
#define deflateGetDictionary   bwz_deflateGetDictionary
#define deflateInit2_          bwz_deflateInit2_
#define deflateInit_           bwz_deflateInit_
#define deflateParams          bwz_deflateParams
#define deflatePending         bwz_deflatePending
#define deflatePrime           bwz_deflatePrime
#define deflateReset           bwz_deflateReset
#define deflateResetKeep       bwz_deflateResetKeep
#define deflateSetDictionary   bwz_deflateSetDictionary
#define deflateSetHeader       bwz_deflateSetHeader
#define deflateTune            bwz_deflateTune
#define deflate_copyright      bwz_deflate_copyright
#define get_crc_table          bwz_get_crc_table
#define zError                 bwz_zError
#define z_errmsg               bwz_z_errmsg
#define zcalloc                bwz_zcalloc
#define zcfree                 bwz_zcfree
#define zlibCompileFlags       bwz_zlibCompileFlags
#define zlibVersion            bwz_zlibVersion

#endif
