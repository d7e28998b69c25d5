package reencode

import (
	"testing"
	"time"
)

// BenchmarkEncode measures Encode per settings family on the golden
// page (98 KiB of HTML): the figures behind encodeRate's table and so
// behind "slow to re-encode". The baseline, measured in the same run, is
// klauspost flate level 1 of the same page (x-flate1: how many times
// slower than it).
func BenchmarkEncode(b *testing.B) {
	doc := goldenInput(b)
	base := Params{Codec: CodecDeflate, Impl: ImplKlauspost, Level: 1}
	baseline := func() time.Duration {
		const n = 20
		start := time.Now()
		var dst []byte
		for range n {
			dst, _ = Encode(dst[:0], base, doc)
		}
		return time.Since(start) / n
	}
	for _, p := range goldenSettings() {
		if p.Codec == CodecBrotli && p.Window != 22 {
			continue
		}
		b.Run(p.String(), func(b *testing.B) {
			bt := baseline()
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			b.ResetTimer()
			var dst []byte
			for range b.N {
				var err error
				if dst, err = Encode(dst[:0], p, doc); err != nil {
					b.Fatal(err)
				}
			}
			per := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(per)/float64(bt), "x-flate1")
		})
	}
}

// BenchmarkFindMiss measures a failing search: a gzip entity from
// klauspost level 1 whose header claims the stdlib default, so every
// Go setting is tried and refused. Baseline: one Encode of the page.
func BenchmarkFindMiss(b *testing.B) {
	doc := goldenInput(b)
	enc, err := Encode(nil, Params{Codec: CodecDeflate, Impl: ImplKlauspost, Level: 1}, doc)
	if err != nil {
		b.Fatal(err)
	}
	enc[len(enc)/2] ^= 1 // differs only from the middle on: the worst case
	start := time.Now()
	Encode(nil, Params{Codec: CodecDeflate, Impl: ImplStdlib, Level: 6}, doc)
	bt := time.Since(start)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		Find("deflate", enc, Limits{})
	}
	b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(bt), "x-encode")
}
