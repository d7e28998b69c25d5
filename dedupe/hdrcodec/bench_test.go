package hdrcodec

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// headerObj is one header block as the dedupe store would hold it.
type headerObj struct {
	group     string // URL: objects of one group share a zstd frame
	capture   string // URL and crawl file: one capture's objects
	raw, prev []byte
	ctx, refs Context // refs: ctx plus the record ids the record names
}

func corpusObjects(b *testing.B, site string, anyType bool) []headerObj {
	dir := sharedtest.Dir(b, "corpus", site)
	all := loadDir(b, dir, func(name string) bool { return strings.HasSuffix(name, ".warc.gz") })
	var objs []headerObj
	for _, r := range chainOpt(all, anyType) {
		ctx, refs := ctxFor(r.sample, false), ctxFor(r.sample, true)
		capture := r.uri + "\x00" + r.file
		objs = append(objs, headerObj{r.uri, capture, r.warcHdr, r.prevWARC, ctx, refs})
		if r.httpHdr != nil {
			objs = append(objs, headerObj{r.uri, capture, r.httpHdr, r.prevHTTP, ctx, refs})
		}
	}
	return objs
}

func newZstd(b *testing.B, opts ...zstd.EOption) *zstd.Encoder {
	opts = append([]zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false)}, opts...)
	z, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return z
}

// BenchmarkCorpusHeaders measures, on every WARC and HTTP header block of a
// corpus site (records sorted by URL then time, prev = previous record of
// the same URL and type), compressed size at zstd's best level:
//
//	a: each raw block alone
//	b: each raw block with prev as raw dictionary (the delta baseline)
//	c: each encoding alone
//	d: encodings concatenated per URL in capture order, one frame per URL
//	e: raw blocks concatenated the same way (d's baseline)
//	r: like d, with the warcinfo and concurrent record ids in the context
//	f: like d, the first capture of a URL taking the previous record of
//	   its type (any URL) as prev
//	g: like d, one frame per URL and crawl file (as when each crawl is
//	   ingested on its own), against h: raw blocks framed the same way
//
// and times Encode+Decode of all blocks against zstd (default level)
// compressing and decompressing each block alone (x-zstd-time). Setup takes
// a minute or more: baseline b resets a best-level encoder with a new
// dictionary per block.
func BenchmarkCorpusHeaders(b *testing.B) {
	for _, site := range []string{"mkdocs-org", "ota-tinder"} {
		b.Run(site, func(b *testing.B) {
			objs := corpusObjects(b, site, false)
			alone, delta := newZstd(b), newZstd(b)
			defer alone.Close()
			defer delta.Close()
			var rawTotal, encTotal, a, bb, c, d, e, r int
			var frameEnc, frameRaw, frameRefs []byte
			flush := func() {
				if len(frameRaw) > 0 {
					d += len(alone.EncodeAll(frameEnc, nil))
					e += len(alone.EncodeAll(frameRaw, nil))
					r += len(alone.EncodeAll(frameRefs, nil))
				}
				frameEnc, frameRaw, frameRefs = frameEnc[:0], frameRaw[:0], frameRefs[:0]
			}
			for i, o := range objs {
				if i > 0 && o.group != objs[i-1].group {
					flush()
				}
				enc := Encode(nil, o.raw, o.prev, o.ctx)
				rawTotal += len(o.raw)
				encTotal += len(enc)
				a += len(alone.EncodeAll(o.raw, nil))
				if len(o.prev) > 0 {
					if err := delta.ResetWithOptions(nil, zstd.WithEncoderDictRaw(1, o.prev)); err != nil {
						b.Fatal(err)
					}
					bb += len(delta.EncodeAll(o.raw, nil))
				} else {
					bb += len(alone.EncodeAll(o.raw, nil))
				}
				c += len(alone.EncodeAll(enc, nil))
				frameEnc = append(frameEnc, enc...)
				frameRaw = append(frameRaw, o.raw...)
				frameRefs = Encode(frameRefs, o.raw, o.prev, o.refs)
			}
			flush()
			f := 0
			frameEnc = frameEnc[:0]
			fobjs := corpusObjects(b, site, true)
			for i, o := range fobjs {
				if i > 0 && o.group != fobjs[i-1].group {
					f += len(alone.EncodeAll(frameEnc, nil))
					frameEnc = frameEnc[:0]
				}
				frameEnc = Encode(frameEnc, o.raw, o.prev, o.ctx)
			}
			f += len(alone.EncodeAll(frameEnc, nil))

			g, h := 0, 0
			frameEnc, frameRaw = frameEnc[:0], frameRaw[:0]
			for i, o := range objs {
				if i > 0 && o.capture != objs[i-1].capture {
					g += len(alone.EncodeAll(frameEnc, nil))
					h += len(alone.EncodeAll(frameRaw, nil))
					frameEnc, frameRaw = frameEnc[:0], frameRaw[:0]
				}
				frameEnc = Encode(frameEnc, o.raw, o.prev, o.ctx)
				frameRaw = append(frameRaw, o.raw...)
			}
			g += len(alone.EncodeAll(frameEnc, nil))
			h += len(alone.EncodeAll(frameRaw, nil))

			b.SetBytes(int64(rawTotal))
			b.ReportAllocs()
			b.ResetTimer()
			var buf, out []byte
			for b.Loop() {
				for _, o := range objs {
					buf = Encode(buf[:0], o.raw, o.prev, o.ctx)
					var err error
					if out, err = Decode(out[:0], buf, o.prev, o.ctx); err != nil || !bytes.Equal(out, o.raw) {
						b.Fatalf("round trip failed: %v", err)
					}
				}
			}
			b.StopTimer()
			perRound := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			// Time baseline: zstd (default level) compressing and
			// decompressing each raw block alone, the obvious alternative.
			zd := newZstd(b, zstd.WithEncoderLevel(zstd.SpeedDefault))
			defer zd.Close()
			dz, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
			if err != nil {
				b.Fatal(err)
			}
			defer dz.Close()
			rounds := max(b.N, 3)
			t0 := time.Now()
			for range rounds {
				for _, o := range objs {
					buf = zd.EncodeAll(o.raw, buf[:0])
					if out, err = dz.DecodeAll(buf, out[:0]); err != nil {
						b.Fatal(err)
					}
				}
			}
			zstdRound := float64(time.Since(t0).Nanoseconds()) / float64(rounds)
			b.ReportMetric(perRound/zstdRound, "x-zstd-time")
			b.ReportMetric(float64(len(objs)), "blocks")
			b.ReportMetric(float64(rawTotal), "raw-B")
			b.ReportMetric(float64(encTotal), "enc-B")
			b.ReportMetric(float64(a), "a-alone-B")
			b.ReportMetric(float64(bb), "b-delta-B")
			b.ReportMetric(float64(c), "c-enc-alone-B")
			b.ReportMetric(float64(d), "d-enc-frame-B")
			b.ReportMetric(float64(e), "e-raw-frame-B")
			b.ReportMetric(float64(r), "r-enc-refs-frame-B")
			b.ReportMetric(float64(f), "f-enc-anyprev-frame-B")
			b.ReportMetric(float64(f)/float64(bb), "f-x-delta")
			b.ReportMetric(float64(g), "g-enc-capture-frame-B")
			b.ReportMetric(float64(h), "h-raw-capture-frame-B")
			b.ReportMetric(float64(g)/float64(bb), "g-x-delta")
			b.ReportMetric(float64(g)/float64(h), "g-x-rawcapture")
			b.ReportMetric(float64(c)/float64(a), "c-x-alone")
			b.ReportMetric(float64(c)/float64(bb), "c-x-delta")
			b.ReportMetric(float64(d)/float64(bb), "d-x-delta")
			b.ReportMetric(float64(d)/float64(e), "d-x-rawframe")
			b.ReportMetric(float64(r)/float64(bb), "r-x-delta")
		})
	}
}
