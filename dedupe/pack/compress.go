package pack

import (
	"bytes"
	"fmt"

	"github.com/blockwarc/blockwarc/dedupe/chunk"
	"github.com/blockwarc/blockwarc/internal/zstdlib"

	"github.com/klauspost/compress/zstd"
)

// start compresses j on a goroutine of its own with a free encoder slot.
func (w *Writer) start(j *frameJob) {
	if n := len(w.freeSlots); n > 0 {
		j.slot, w.freeSlots = w.freeSlots[n-1], w.freeSlots[:n-1]
	} else {
		j.slot = &encSlot{}
		w.slots = append(w.slots, j.slot)
	}
	j.done = make(chan struct{})
	go func() {
		defer close(j.done)
		w.compress(j, j.slot)
	}()
}

// writeOldest waits for the oldest queued frame's compression and
// appends it to the pack.
func (w *Writer) writeOldest() error {
	j := w.queue[0]
	<-j.done
	if j.slot != nil {
		w.freeSlots = append(w.freeSlots, j.slot)
	}
	if j.err != nil {
		return w.fail(j.err)
	}
	if err := w.write(j, j.seq); err != nil {
		return err
	}
	w.queue[0] = nil
	w.queue = w.queue[1:]
	return nil
}

// wait waits for every frame compressing in the background.
func (w *Writer) wait() {
	for _, j := range w.queue {
		if j.done != nil {
			<-j.done
		}
	}
}

// frameJob is a flushed frame waiting to be compressed and written.
type frameJob struct {
	seq         int           // its frames entry
	chunkFrame  *chunk.Frame  // a frame of chunks, compressed already (enc)
	done        chan struct{} // closed when compressed, if compressed in the background
	slot        *encSlot
	plain, dict []byte
	count       uint32
	depth       uint8
	reach       int64 // as decodedFrame.reach
	bases       []baseRef
	enc         []byte
	err         error
}

// encSlot holds one worker's encoders: zstd dictionaries are set per
// encoder, and switching an encoder between having one and not is costly.
type encSlot struct {
	// by [small][dict]: encoders whose window holds at most smallWindow
	// bytes, for frames whose plaintext and dictionary fit it, and
	// encoders of the library's default window for the others.
	by  [2][2]*zstd.Encoder
	buf []byte
	// ctx is the reference library's context for the fast tier's frames
	// (fastCompressC), nil until the first.
	ctx *zstdlib.Ctx
}

// smallWindow is the window of the encoders for small frames. A frame
// encoded whole (EncodeAll) whose plaintext and dictionary fit the window
// comes out the same whatever the window (one segment; TestSmallWindow),
// and klauspost allocates and clears a history of twice the window for
// each encoder: 32 MiB at the default, a tenth of a small ingest's CPU in
// the fast tier.
const smallWindow = 1 << 20

func (w *Writer) compress(j *frameJob, sl *encSlot) {
	if haveLibzstd && w.opts.Level == zstd.SpeedBestCompression && w.compressC(j, sl) {
		return
	}
	if haveLibzstd && w.opts.Level == zstd.SpeedBetterCompression && w.fastCompressC(j, sl) {
		return
	}
	small := len(j.plain)+len(j.dict) <= smallWindow
	enc := &sl.by[b2i(small)][b2i(j.dict != nil)]
	if *enc == nil {
		if *enc, j.err = w.newEncoder(small); j.err != nil {
			return
		}
	}
	if j.dict != nil {
		if err := (*enc).ResetWithOptions(nil, zstd.WithEncoderDictRaw(dictID, j.dict)); err != nil {
			j.err = fmt.Errorf("set dictionary: %w", err)
			return
		}
	}
	j.enc = (*enc).EncodeAll(j.plain, sl.buf[:0])
	sl.buf = j.enc
}

// compressC compresses j with the reference zstd library and reports
// whether it did. The frame is decoded again by the reader's decoder
// before it is used: the two libraries must agree on every frame, and a
// frame they would not agree on is left to the pure-Go encoder.
func (w *Writer) compressC(j *frameJob, sl *encSlot) bool {
	enc, err := libzstdCompress(sl.buf[:0], j.plain, j.dict)
	if err != nil {
		return false
	}
	sl.buf = enc
	return w.checkC(j, enc)
}

// checkC names the dictionary of enc, the reference library's frame of
// j, and sets it as j's frame if the readers' decoder gives j's plaintext
// back; it reports whether it did.
func (w *Writer) checkC(j *frameJob, enc []byte) bool {
	if j.dict != nil {
		// The library writes no dictionary id for a raw-content
		// dictionary; the format's frames name id 1.
		var err error
		if enc, err = zstdlib.NameDict(enc, dictID); err != nil {
			return false
		}
	}
	back, err := w.s.decode(enc, j.dict, len(j.plain))
	if err != nil {
		return false
	}
	same := bytes.Equal(back, j.plain)
	w.s.cache.give(back)
	if !same {
		return false
	}
	j.enc = enc
	return true
}

// fastCompressC compresses j for the fast tier (klauspost's "better"
// level asked) with the reference library at libzstdFastLevel in the
// slot's context, and reports whether it did; as compressC, the frame is
// decoded by the readers' decoder first. klauspost resets (copies) its
// full-size tables for every frame with a dictionary and rebuilds them
// for every new one, whatever the frame's size: in the fast tier, whose
// delta and catalog frames are mostly small, that was most of the
// compression's CPU. The library sizes its tables from the frame and
// its dictionary.
func (w *Writer) fastCompressC(j *frameJob, sl *encSlot) bool {
	if sl.ctx == nil {
		ctx, err := zstdlib.NewCtx()
		if err != nil {
			return false
		}
		sl.ctx = ctx
	}
	enc, err := sl.ctx.Compress(sl.buf[:0], j.plain, libzstdFastLevel, j.dict)
	if err != nil {
		return false
	}
	sl.buf = enc
	return w.checkC(j, enc)
}

// drain compresses the queued frames (with one worker, here; else they
// are compressing already) and appends them to the pack in Flush order.
func (w *Writer) drain() error {
	if w.opts.Workers > 1 {
		for len(w.queue) > 0 {
			if err := w.writeOldest(); err != nil {
				return err
			}
		}
		return nil
	}
	if len(w.slots) == 0 {
		w.slots = append(w.slots, &encSlot{})
	}
	for _, j := range w.queue {
		if j.chunkFrame == nil {
			w.compress(j, w.slots[0])
		}
		if j.err != nil {
			return w.fail(j.err)
		}
		if err := w.write(j, j.seq); err != nil {
			return err
		}
	}
	clear(w.queue)
	w.queue = w.queue[:0]
	return nil
}

// write appends the compressed frame j, number seq of this writer, to
// the pack.
func (w *Writer) write(j *frameJob, seq int) error {
	h := frameHeader{depth: j.depth, clen: uint32(len(j.enc)), ulen: uint32(len(j.plain)),
		count: j.count, dcrc: crc(j.enc), bases: j.bases}
	if cf := j.chunkFrame; cf != nil {
		if cf.Table > maxChunkTable {
			return w.fail(fmt.Errorf("frame of chunks: chunk table of %d bytes", cf.Table))
		}
		h = frameHeader{flags: frameChunks, depth: cf.Prefix, clen: uint32(len(j.enc)), ulen: cf.Plain, count: cf.Chunks, dcrc: cf.CRC}
	}
	hdr := h.appendTo(w.hdrBuf[:0])
	w.hdrBuf = hdr
	flen := int64(len(hdr) + len(j.enc))
	if err := w.ensurePack(flen); err != nil {
		return w.fail(err)
	}
	off := w.packLen
	if err := w.opts.fault("write", w.pack.Name()); err != nil {
		return w.fail(fmt.Errorf("write frame to pack %d: %w", w.packNum, err))
	}
	if _, err := w.pack.WriteAt(hdr, off); err != nil {
		return w.fail(fmt.Errorf("write frame to pack %d: %w", w.packNum, err))
	}
	if _, err := w.pack.WriteAt(j.enc, off+int64(len(hdr))); err != nil {
		return w.fail(fmt.Errorf("write frame to pack %d: %w", w.packNum, err))
	}
	w.packLen += flen
	w.dirty[w.packNum] = w.packLen
	w.frames[seq] = frameRow{pack: w.packNum, off: off, len: uint32(flen)}
	// Written: nothing reads the frame's plaintext and dictionary again.
	w.recycle(j.plain)
	w.recycle(j.dict)
	j.plain, j.dict = nil, nil
	if cf := j.chunkFrame; cf != nil {
		w.chunkRows = append(w.chunkRows, chunkRow{pack: w.packNum, off: off, len: uint32(flen), first: cf.FirstChunk,
			chunks: cf.Chunks, table: cf.Table, plain: cf.Plain, crc: cf.CRC, prefix: cf.Prefix})
	}
	return nil
}

// maxSpare bounds the buffers spare keeps.
const maxSpare = 4

// buffer returns an empty buffer of capacity at least n, one of a frame
// written already when one is large enough. A frame's plaintext and
// dictionary are megabytes each, short-lived: allocated anew for every
// frame, they were a good part of a fast-tier ingest's page faults.
func (w *Writer) buffer(n int) []byte {
	for i, b := range w.spare {
		if cap(b) >= n {
			w.spare[i] = w.spare[len(w.spare)-1]
			w.spare = w.spare[:len(w.spare)-1]
			return b[:0]
		}
	}
	return make([]byte, 0, n)
}

// recycle keeps b, which nothing uses any more, for buffer; when spare is
// full, in place of its smallest if b is larger.
func (w *Writer) recycle(b []byte) {
	if cap(b) == 0 {
		return
	}
	if len(w.spare) < maxSpare {
		w.spare = append(w.spare, b)
		return
	}
	small := 0
	for i, s := range w.spare {
		if cap(s) < cap(w.spare[small]) {
			small = i
		}
	}
	if cap(b) > cap(w.spare[small]) {
		w.spare[small] = b
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (w *Writer) newEncoder(small bool) (*zstd.Encoder, error) {
	opts := []zstd.EOption{zstd.WithEncoderLevel(w.opts.Level), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true)}
	if small {
		opts = append(opts, zstd.WithWindowSize(smallWindow))
	}
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("create zstd encoder: %w", err)
	}
	return e, nil
}
