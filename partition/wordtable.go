package partition

// wordTable maps the distinct tokens of one document to dense ids. It is
// what tokenize would otherwise use a map[string]int32 for: one lookup per
// word of the text made that map the largest cost of topic extraction.
// Open addressing over FNV-1a hashes that the caller computes while it
// scans (and lower-cases) the word, so the bytes are read once; keys are
// the tokens themselves, held by the caller's slice (token(id)).
type wordTable struct {
	slots []wordSlot // len is a power of two
	n     int
}

type wordSlot struct {
	hash uint32
	id   int32 // id+1; 0 marks an empty slot
}

const (
	fnv32Offset = 2166136261
	fnv32Prime  = 16777619
)

func hashString(s string) uint32 {
	h := uint32(fnv32Offset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * fnv32Prime
	}
	return h
}

func newWordTable(sizeHint int) *wordTable {
	n := 64
	for n < 2*sizeHint {
		n *= 2
	}
	return &wordTable{slots: make([]wordSlot, n)}
}

// newWordTableReusing is newWordTable taking the slots of old (an
// earlier document's table, nil for none) when they are enough.
func newWordTableReusing(old *wordTable, sizeHint int) *wordTable {
	if old == nil || len(old.slots) < 2*sizeHint || len(old.slots) < 64 {
		return newWordTable(sizeHint)
	}
	clear(old.slots)
	return &wordTable{slots: old.slots}
}

// find returns the id of key (hash h) and true, or the slot where it
// belongs and false. tokens holds the key of every id.
func (t *wordTable) find(key string, h uint32, tokens []wordInfo) (int32, bool) {
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.id == 0 {
			return int32(i), false
		}
		if s.hash == h && tokens[s.id-1].token == key {
			return s.id - 1, true
		}
	}
}

// findBytes is find for a key in a scratch buffer; comparing string(key)
// with a string does not allocate.
func (t *wordTable) findBytes(key []byte, h uint32, tokens []wordInfo) (int32, bool) {
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.id == 0 {
			return int32(i), false
		}
		if s.hash == h && tokens[s.id-1].token == string(key) {
			return s.id - 1, true
		}
	}
}

// insert records id under hash h in the free slot that find returned,
// growing the table (which moves slots) when it is half full.
func (t *wordTable) insert(slot int32, h uint32, id int32) {
	t.slots[slot] = wordSlot{hash: h, id: id + 1}
	t.n++
	if 2*t.n <= len(t.slots) {
		return
	}
	old := t.slots
	t.slots = make([]wordSlot, 2*len(old))
	mask := uint32(len(t.slots) - 1)
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := s.hash & mask
		for t.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
