package reencode

import "time"

// encodeTime estimates how long Encode of n decoded bytes takes with p:
// a fixed cost (setting up the encoder) plus n / rate, with the rates
// measured by BenchmarkEncode (see the package doc).
func encodeTime(p *Params, n int) time.Duration {
	var r rate
	if p.Codec == CodecBrotli {
		r = brotliRates[p.Level]
	} else {
		k := 0
		if p.Impl == ImplKlauspost {
			k = 1
		}
		r = flateRates[k][p.Level+2]
	}
	return r.setup + time.Duration(float64(n)/r.mbps*float64(time.Microsecond))
}

type rate struct {
	setup time.Duration
	mbps  float64 // decoded MB/s
}

// The rates: setup is the time of an Encode of 1 KiB, mbps the
// throughput on the 98 KiB golden page (setup included, so rates are a
// little pessimistic), both measured on the 2-core build machine while
// other jobs ran (go test -bench Encode ./dedupe/reencode, and the same
// on 1 KiB), rounded towards slower. With DefaultMaxEncodeTime (10 ms)
// they allow, per decoded page size: brotli q11 up to about 2 KiB, q10
// up to 8 KiB, q9 up to 40 KiB, q5 up to 140 KiB; Go's standard flate
// level 6 (the gzip default) up to 120 KiB, klauspost's level 5 up to
// 950 KiB.
var brotliRates = [12]rate{
	{35 * time.Microsecond, 100}, // q0
	{30 * time.Microsecond, 53},
	{30 * time.Microsecond, 22},
	{50 * time.Microsecond, 18},
	{80 * time.Microsecond, 20},
	{130 * time.Microsecond, 15}, // q5
	{210 * time.Microsecond, 8.5},
	{640 * time.Microsecond, 9.5},
	{1120 * time.Microsecond, 7.7},
	{2440 * time.Microsecond, 5.6},
	{3710 * time.Microsecond, 1.26}, // q10
	{5030 * time.Microsecond, 0.47}, // q11
}

// flateRates[klauspost][level+2], levels -2 (Huffman only) to 9; the
// entry of level -1 is unused.
var flateRates = [2][12]rate{
	{ // compress/flate
		{65 * time.Microsecond, 144}, {}, {35 * time.Microsecond, 586},
		{85 * time.Microsecond, 67}, {65 * time.Microsecond, 73}, {60 * time.Microsecond, 38},
		{120 * time.Microsecond, 53}, {80 * time.Microsecond, 25}, {90 * time.Microsecond, 13},
		{110 * time.Microsecond, 11}, {70 * time.Microsecond, 11.6}, {75 * time.Microsecond, 11.4},
	},
	{ // klauspost/compress/flate
		{30 * time.Microsecond, 424}, {}, {25 * time.Microsecond, 590},
		{145 * time.Microsecond, 150}, {385 * time.Microsecond, 112}, {105 * time.Microsecond, 85},
		{90 * time.Microsecond, 114}, {55 * time.Microsecond, 97}, {70 * time.Microsecond, 83},
		{70 * time.Microsecond, 32}, {100 * time.Microsecond, 15.5}, {115 * time.Microsecond, 8.2},
	},
}
