package dedupe

import (
	"fmt"
	"slices"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// lostPlaces checks the versions of catalog segments that name objects
// by place.
type lostPlaces struct {
	s    *pack.Store
	read map[pack.ID]error
}

// check returns an error naming the first version of urls that names an
// object by place and does not restore.
func (lp *lostPlaces) check(urls []URLVersions) error {
	for _, u := range urls {
		for i := range u.Versions {
			if err := lp.restores(&u.Versions[i]); err != nil {
				return fmt.Errorf("it names objects by place, and the record %s at %d does not restore: %w", u.Versions[i].File, u.Versions[i].Offset, err)
			}
		}
	}
	return nil
}

// restores returns why v, when it names an object by place, does not
// restore, its CRC-32C included: a place does not prove its bytes as a
// hash does, and once repair has dropped a lost frame of chunks a later
// ingest may give its numbers to new chunks, so that the old place reads
// another object. nil for a version that names none.
func (lp *lostPlaces) restores(v *Version) error {
	if !slices.ContainsFunc(objectsOf(v), func(id pack.ID) bool { _, ok := id.Place(); return ok }) {
		return nil
	}
	_, err := restore(v, func(id pack.ID) ([]byte, error) {
		b, _, err := lp.s.Get(id)
		return b, err
	})
	return err
}

// get reads an object named by place once and returns why it does not
// read; nil for other ids.
func (lp *lostPlaces) get(id pack.ID) error {
	if _, ok := id.Place(); !ok {
		return nil
	}
	err, seen := lp.read[id]
	if !seen {
		_, _, err = lp.s.Get(id)
		lp.read[id] = err
	}
	return err
}

// readable reports whether every one of ids reads: objects named by
// place are read, others looked up.
func (lp *lostPlaces) readable(ids ...pack.ID) bool {
	for _, id := range ids {
		if _, ok := id.Place(); ok {
			if lp.get(id) != nil {
				return false
			}
		} else if id != (pack.ID{}) {
			if ok, err := lp.s.Has(id); err != nil || !ok {
				return false
			}
		}
	}
	return true
}
