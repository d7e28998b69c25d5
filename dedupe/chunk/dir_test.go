package chunk

import (
	"testing"
	"unsafe"
)

// TestFrameSize: a reader holds a Frame for every frame of the archive
// (about 1.7 M rows for 400 TB of records), so its fields stay packed.
func TestFrameSize(t *testing.T) {
	if s := unsafe.Sizeof(Frame{}); s > 40 {
		t.Errorf("a Frame takes %d bytes, want at most 40", s)
	}
}
