// Package zlibenc is zlib's raw deflate encoder, through cgo, so that
// gzip members written by zlib (wget, Heritrix, the gzip tool) can be
// re-deflated bit for bit from their decompressed bytes: no Go deflate
// implementation produces zlib's output.
//
// Durability. A restore depends on zlib producing the bytes it produced
// at ingest, on whatever host it runs. So the encoder is not the host's
// libz (another version, or zlib-ng, which writes other bytes: issue
// 34) but zlib 1.2.13's deflate sources, vendored unmodified in zlib/
// (tag v1.2.13 of github.com/madler/zlib, commit 04f42ce; its LICENSE
// there) and compiled into the package under zlib_prefix.h's bwz_ names,
// so no system libz can stand in for them; TestNoSystemZlib checks the
// binary. TestGolden pins the SHA-256 of the output of every setting
// Candidates returns on a fixed document, so a change to the vendored
// copy that changes its output fails the test instead of writing
// archives that cannot be restored. A restore checks the rebuilt file's
// SHA-256 anyway: a differing encoder makes it fail, never return wrong
// bytes.
//
// A build without cgo (CGO_ENABLED=0) has no encoder: Available is false
// and Deflate and Reproduces return ErrUnavailable.
package zlibenc

import (
	"errors"
	"fmt"
)

// ErrUnavailable is returned by a build without cgo.
var ErrUnavailable = errors.New("zlib deflate not available (built without cgo)")

// Params are the deflateInit2 settings besides windowBits, which is
// always -15 (raw deflate, 32 KiB window: what gzip writers use).
type Params struct {
	Level    int // 1–9 (0 stores, not tried)
	MemLevel int // 1–9; zlib's default is 8
	Strategy int // StrategyDefault or StrategyFiltered
	// SyncFlush: the writer flushed (Z_SYNC_FLUSH) after the last input,
	// then finished, as Python's warcio and pywb write each member; the
	// stream ends in an empty stored block and an empty final one.
	SyncFlush bool
}

// zlib strategies (Z_DEFAULT_STRATEGY, Z_FILTERED).
const (
	StrategyDefault  = 0
	StrategyFiltered = 1
)

func (p Params) String() string {
	s := "default"
	if p.Strategy == StrategyFiltered {
		s = "filtered"
	}
	if p.SyncFlush {
		s += " syncflush"
	}
	return fmt.Sprintf("zlib level %d memLevel %d %s", p.Level, p.MemLevel, s)
}

// Valid reports whether p is a setting Deflate accepts.
func (p Params) Valid() bool {
	return p.Level >= 1 && p.Level <= 9 && p.MemLevel >= 1 && p.MemLevel <= 9 &&
		(p.Strategy == StrategyDefault || p.Strategy == StrategyFiltered)
}

// Candidates are the settings a search tries, most common first: zlib's
// default level 6, then 9 (gzip -9, Heritrix), then the other levels, at
// the default memLevel 8, then memLevel 9 and the filtered strategy;
// then each of those flushed before finishing (Python writers); last,
// the smaller memLevels 1–7 (seen in the wild: level 4 memLevel 3).
// 135 settings: a member no setting reproduces costs that many trials,
// each stopped at its first differing output byte.
func Candidates() []Params {
	var ps []Params
	for _, flush := range []bool{false, true} {
		for _, st := range []int{StrategyDefault, StrategyFiltered} {
			for _, ml := range []int{8, 9} {
				for _, l := range []int{6, 9, 1, 2, 3, 4, 5, 7, 8} {
					ps = append(ps, Params{Level: l, MemLevel: ml, Strategy: st, SyncFlush: flush})
				}
			}
		}
	}
	for ml := 1; ml <= 7; ml++ {
		for _, l := range []int{6, 9, 1, 2, 3, 4, 5, 7, 8} {
			ps = append(ps, Params{Level: l, MemLevel: ml})
		}
	}
	return ps
}
