package pack

import (
	"bytes"
	"errors"
)

func (w *Writer) inDict(id ID) bool {
	for _, b := range w.bases {
		if b.id == id {
			return true
		}
	}
	return false
}

// near reports whether id can serve as a delta base of the frame being
// built at no cost to readers: it is in that frame, or in the frame of one
// of its bases already, so reading the frame needs no frame more than it
// does now; and adding it does not close the frame for lack of room
// (Options.MaxBases, MaxDict).
func (w *Writer) near(id ID) (bool, error) {
	if p, ok := w.pending[id]; ok && p.frame < 0 || w.inDict(id) {
		return true, nil
	}
	key, size, ok, err := w.frameOf(id)
	if err != nil || !ok {
		return false, err
	}
	if len(w.bases) >= w.opts.MaxBases || w.dictSize+int(size) > w.opts.MaxDict {
		return false, nil
	}
	return w.baseFrames[key], nil
}

// frameOf names the frame id is in and gives the object's size, without
// waiting for frames compressing in the background.
func (w *Writer) frameOf(id ID) (key frameKey, size uint32, ok bool, err error) {
	if p, ok := w.pending[id]; ok {
		if p.frame < 0 {
			return frameKey{}, 0, false, errors.New("object is in the unflushed frame")
		}
		return frameKey{pendingPack, int64(p.frame)}, p.len, true, nil
	}
	l, ok, err := w.s.locate(id)
	if err != nil || !ok {
		return frameKey{}, 0, ok, err
	}
	return frameKey{l.pack, l.off}, l.objLen, true, nil
}

// baseFrame is what the writer needs of a base's frame.
type baseFrame struct {
	depth uint8
	key   frameKey // as frameOf gives it
	reach int64
}

// baseObject returns a copy of a flushed or committed object and its
// frame's depth, key and reach. An object of a frame still compressing
// is taken from the frame's plaintext, without waiting for it.
func (w *Writer) baseObject(id ID) ([]byte, baseFrame, error) {
	if p, ok := w.pending[id]; ok && p.frame >= 0 {
		if q := int(p.frame) - (len(w.frames) - len(w.queue)); q >= 0 {
			j := w.queue[q]
			b := bytes.Clone(j.plain[p.off : p.off+p.len])
			return b, baseFrame{depth: j.depth, key: frameKey{pendingPack, int64(p.frame)}, reach: j.reach}, nil
		}
	}
	key, _, ok, err := w.frameOf(id)
	if err == nil && !ok {
		err = ErrNotFound
	}
	if err != nil {
		return nil, baseFrame{}, err
	}
	budget := maxDecodes
	b, _, fr, err := w.s.object(w, id, w.opts.MaxChain, &budget, true)
	if err != nil {
		return nil, baseFrame{}, err
	}
	b = bytes.Clone(b)
	bf := baseFrame{depth: fr.depth, key: key, reach: fr.reach}
	w.s.cache.release(fr)
	return b, bf, nil
}

// withinReach reports whether base, not free (near), may still serve
// AddNear: with it, a full frame and the frames its bases need stay
// within Options.NearReach bytes of plaintext to decode.
//
// It returns the base's bytes and frame when it may, nil bytes when not
// (a missing base included).
func (w *Writer) withinReach(base ID) ([]byte, baseFrame, error) {
	if w.opts.NearReach <= 0 || len(w.bases) >= w.opts.MaxBases {
		return nil, baseFrame{}, nil
	}
	if _, _, ok, err := w.frameOf(base); err != nil || !ok {
		return nil, baseFrame{}, err
	}
	b, fr, err := w.baseObject(base)
	if err != nil {
		return nil, baseFrame{}, err
	}
	if w.dictSize+len(b) > w.opts.MaxDict || int(fr.depth) >= w.opts.MaxChain {
		return nil, baseFrame{}, nil
	}
	reach := int64(w.opts.FrameSize) + w.baseReach
	if !w.baseFrames[fr.key] {
		reach += fr.reach
	}
	if reach > w.opts.NearReach {
		return nil, baseFrame{}, nil
	}
	return b, fr, nil
}
