package parity

import (
	"bytes"
	"testing"

	"github.com/klauspost/reedsolomon"
)

// TestEncoderMatrix compares newEncoder's matrix with the library's, row
// for row, for every number of data shards k (-short: up to 16, every
// 32nd, and the two largest; the library's inversion is slow under the
// race detector): a parity row depends on k and its point alone, so the
// shape with the most parity (m = 256−k) holds every row any m has. The
// matrix is read back by encoding the identity (data shard i holds 1 at
// byte i): parity shard p is then row p.
func TestEncoderMatrix(t *testing.T) {
	for k := 1; k < maxShards; k++ {
		if testing.Short() && k > 16 && k%32 != 0 && k < maxShards-2 {
			continue
		}
		m := maxShards - k
		rows := func(enc reedsolomon.Encoder) [][]byte {
			shards := make([][]byte, k+m)
			for i := range shards {
				shards[i] = make([]byte, k)
				if i < k {
					shards[i][i] = 1
				}
			}
			if err := enc.Encode(shards); err != nil {
				t.Fatalf("k=%d m=%d: %v", k, m, err)
			}
			return shards[k:]
		}
		lib, err := reedsolomon.New(k, m)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := newEncoder(k, m)
		if err != nil {
			t.Fatal(err)
		}
		want, got := rows(lib), rows(ours)
		for p := range want {
			if !bytes.Equal(got[p], want[p]) {
				t.Fatalf("k=%d: parity row %d is %x, the library's %x", k, p, got[p], want[p])
			}
		}
	}
}

// BenchmarkEncoderMatrix times building an encoder of a range of a few
// hundred KiB (191 data shards, 7 parity: what a commit's pack range
// of 780 KB takes), the library's way and newEncoder's.
func BenchmarkEncoderMatrix(b *testing.B) {
	b.Run("library", func(b *testing.B) {
		for b.Loop() {
			if _, err := reedsolomon.New(191, 7); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lagrange", func(b *testing.B) {
		for b.Loop() {
			if _, err := newEncoder(191, 7); err != nil {
				b.Fatal(err)
			}
		}
	})
}
