package tables

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestBuildTextChanged: on three real crawls of a privacy policy, the
// second differs from the first only in its markup (tokens in the head)
// and the third renames a language in the language picker. The tables
// say so: text_changed false then true, with the one text-changed block,
// as blockwarc diff reports the same pairs.
func TestBuildTextChanged(t *testing.T) {
	dir := sharedtest.Dir(t, "corpus", "ota-tinder")
	var files []string
	for _, d := range []string{"20220108063013", "20220111003013", "20220120003014"} {
		files = append(files, filepath.Join(dir, "ota-tinder-"+d+".warc.gz"))
	}
	a := ingest(t, filepath.Join(t.TempDir(), "a.bwa"), files)
	r, st := build(t, a, Options{})
	checkTables(t, a, r, st)
	const url = "http://127.0.0.1:8102/Tinder/Privacy%20Policy.html"
	var caps []*Capture
	for _, c := range r.caps {
		if c.URL == url {
			caps = append(caps, c)
		}
	}
	if len(caps) != 3 {
		t.Fatalf("%d captures of %s", len(caps), url)
	}
	if caps[0].TextChanged != nil || caps[0].Changed != nil {
		t.Errorf("first capture: changed %v, text_changed %v, want null", boolStr(caps[0].Changed), boolStr(caps[0].TextChanged))
	}
	if c := caps[1]; c.Changed == nil || !*c.Changed || c.TextChanged == nil || *c.TextChanged || c.BlocksTextChanged != 0 || c.BlocksModified == 0 {
		t.Errorf("markup-only capture: changed %v, text_changed %v, %d text-changed of %d modified blocks",
			boolStr(c.Changed), boolStr(c.TextChanged), c.BlocksTextChanged, c.BlocksModified)
	}
	if c := caps[2]; c.TextChanged == nil || !*c.TextChanged || c.BlocksTextChanged != 1 {
		t.Errorf("text-changed capture: text_changed %v, %d text-changed blocks", boolStr(c.TextChanged), c.BlocksTextChanged)
	}
	// capture_blocks: exactly the language picker is text-changed.
	var changedBlocks []string
	for _, cb := range r.cbs {
		if cb.URLSURTKey == caps[2].URLSURTKey && cb.Version == caps[2].Version && cb.TextChanged {
			if cb.Status != "modified" {
				t.Errorf("text-changed block %s has status %s", cb.Path, cb.Status)
			}
			changedBlocks = append(changedBlocks, cb.Path)
			for _, b := range r.blocks {
				if b.BlockID == cb.BlockID && !strings.Contains(b.Text, "Nederlands") {
					t.Errorf("text-changed block %s text %.80q lacks the new word", cb.Path, b.Text)
				}
			}
		}
	}
	if len(changedBlocks) != 1 {
		t.Errorf("text-changed capture_blocks %q, want one", changedBlocks)
	}
	// changes rows carry the same verdicts.
	var got []string
	for _, ch := range r.changes {
		if ch.URL == url {
			got = append(got, strings.TrimSpace(strings.Join([]string{boolStr(&ch.Changed), boolStr(ch.TextChanged)}, "/")))
			if ch.TextChanged != nil && *ch.TextChanged != (ch.BlocksTextChanged > 0) {
				t.Errorf("changes row %d→%d: text_changed %v with %d text-changed blocks", ch.FromVersion, ch.ToVersion, *ch.TextChanged, ch.BlocksTextChanged)
			}
		}
	}
	if strings.Join(got, " ") != "true/false true/true" {
		t.Errorf("changes (changed/text_changed) %q, want true/false true/true", got)
	}
}

func boolStr(b *bool) string {
	switch {
	case b == nil:
		return "null"
	case *b:
		return "true"
	}
	return "false"
}
