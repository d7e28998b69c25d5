package pack

import (
	"bytes"
	"testing"
)

// TestCaptureFramesSetting: CaptureFrames is recorded as settings field
// 5, in COMMIT and in the settings object, only when set: settings
// without it encode as before (five fields in COMMIT, four in the
// object), and a reader of settings without the field takes the bound
// as off.
func TestCaptureFramesSetting(t *testing.T) {
	s := Settings{}.withDefaults()
	old := s.encode(nil, settingsFields, 7)
	if old[0] != 5 {
		t.Fatalf("settings without the bound encode %d fields, want 5", old[0])
	}
	if got, at, err := decodeSettings(old); err != nil || got != s || at != 7 {
		t.Fatalf("decode: %+v %d %v", got, at, err)
	}
	if b := settingsObject(s, 3); !bytes.Equal(b[len(settingsMagic)+1:], s.encode(nil, 4, 0)) || b[len(settingsMagic)+1] != 4 {
		t.Fatalf("a settings object without the bound changed: %x", b)
	}
	s.CaptureFrames = 20
	b := s.encode(nil, settingsFields, 7)
	got, at, err := decodeSettings(b)
	if err != nil || got != s || at != 7 {
		t.Fatalf("decode with the bound: %+v %d %v", got, at, err)
	}
	obj, gen, err := decodeSettingsObject(settingsObject(s, 3))
	if err != nil || obj != s || gen != 3 {
		t.Fatalf("settings object with the bound: %+v %d %v", obj, gen, err)
	}
	// Given explicitly: negative turns it off; 0 keeps the archive's.
	if o := s.override(Settings{CaptureFrames: -1}); o.CaptureFrames != 0 {
		t.Errorf("override -1: %d", o.CaptureFrames)
	}
	if o := s.override(Settings{}); o.CaptureFrames != 20 {
		t.Errorf("override 0: %d", o.CaptureFrames)
	}
	var opts Options
	opts.KeepSettings(s)
	if opts.CaptureFrames != 20 {
		t.Errorf("KeepSettings: %d", opts.CaptureFrames)
	}
}
