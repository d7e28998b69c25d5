package main

import "crypto/sha256"

// splitSalt and half are the split of partition's BenchmarkMainContent
// (pageHalf in partition/maintext_bench_test.go), so that the figures
// here are of the same pages; TestSplitSaltMatchesPartition checks the
// salt against that file.
const splitSalt = "blockwarc split 2026-11-28:"

const (
	halfTune    = "tune"
	halfHeldOut = "held-out"
)

// half returns the half a page id is in: held-out when the first byte of
// SHA-256(splitSalt + id) is odd, tune when it is even.
func half(id string) string {
	if sum := sha256.Sum256([]byte(splitSalt + id)); sum[0]%2 == 1 {
		return halfHeldOut
	}
	return halfTune
}
