package parity

import "github.com/klauspost/reedsolomon"

// newEncoder returns the encoder reedsolomon.New(k, m) returns, the same
// parity for the same data, with its matrix built in O(k·(k+m)) instead
// of the library's O(k³) inversion (about 20 ms at k = 191, paid by
// every commit that protects a range of a few hundred KiB or more: a
// quarter of the CPU of ingesting a crawl of a few KB).
//
// The library's matrix is the Vandermonde matrix V of the points
// 0 … k+m-1 (row x is 1, x, x², …, x^(k-1) in GF(2⁸)) times the inverse
// of its top k rows, so that the top is the identity. Parity row x is
// then v(x)·V_top⁻¹: the weights a with Σ aᵢ·f(i) = f(x) for every
// polynomial f of degree below k, which are the Lagrange basis
// polynomials of the points 0 … k-1 at x:
//
//	aᵢ = Π_{j≠i} (x − j) / (i − j)
//
// (subtraction is XOR). A matrix is unique, so these are its bytes;
// TestEncoderMatrix compares them with the library's for every shape.
func newEncoder(k, m int) (reedsolomon.Encoder, error) {
	if k < 1 || m < 1 || k+m > maxShards {
		return reedsolomon.New(k, m) // not a shape a sidecar has
	}
	return reedsolomon.New(k, m, reedsolomon.WithCustomMatrix(vandermondeParity(k, m)))
}

// vandermondeParity returns the m parity rows of the library's matrix
// for k data shards (see newEncoder), computed with logarithms: the
// denominators' logs once, then each row from the product over all
// points.
func vandermondeParity(k, m int) [][]byte {
	// logDen[i] = log Π_{j≠i} (i ⊕ j), mod 255.
	logDen := make([]int, k)
	for i := range k {
		s := 0
		for j := range k {
			if j != i {
				s += int(gfLog[i^j])
			}
		}
		logDen[i] = s % 255
	}
	rows := make([][]byte, m)
	for p := range m {
		x := k + p
		// The numerator over all points: aᵢ is it without (x ⊕ i).
		logNum := 0
		for j := range k {
			logNum += int(gfLog[x^j])
		}
		row := make([]byte, k)
		for i := range k {
			l := (logNum - int(gfLog[x^i]) - logDen[i]) % 255
			if l < 0 {
				l += 255
			}
			row[i] = gfExp[l]
		}
		rows[p] = row
	}
	return rows
}

// gfExp and gfLog are powers and logarithms of 2 in GF(2⁸) modulo
// x⁸+x⁴+x³+x²+1 (0x11d), the field of the reedsolomon package.
var gfExp, gfLog = func() (e [255]byte, l [256]byte) {
	x := 1
	for i := range 255 {
		e[i] = byte(x)
		l[x] = byte(i)
		x <<= 1
		if x&0x100 != 0 {
			x ^= 0x11d
		}
	}
	return e, l
}()
