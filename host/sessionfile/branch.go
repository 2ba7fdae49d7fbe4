package sessionfile

import "fmt"

// Leaf is the id of the entry Pi makes the leaf on load: the last entry
// in the file ("" for a file with no entries).
func (f *File) Leaf() string {
	if f.n == 0 {
		return ""
	}
	return f.At(f.n - 1).ID
}

// Branch returns the entries from the root to leaf, in order (Pi's
// getBranch): the active branch when leaf is "". A parent id that names
// no entry ends the walk there, as in Pi; a cycle (which Pi's writer
// cannot produce) ends it at the repeated entry.
func (f *File) Branch(leaf string) ([]*Entry, error) {
	if leaf == "" {
		leaf = f.Leaf()
		if leaf == "" {
			return nil, nil
		}
	}
	i, ok := f.index(leaf)
	if !ok {
		return nil, fmt.Errorf("%s: no entry with id %q", f.Name, leaf)
	}
	var path []*Entry
	for {
		e := f.At(i)
		path = append(path, e)
		// A walk longer than the file went round a cycle.
		if e.ParentID == "" || len(path) >= f.n {
			break
		}
		// Most entries are the child of the entry before.
		if i > 0 && f.At(i-1).ID == e.ParentID && f.isLast(i-1) {
			i--
			continue
		}
		j, ok := f.index(e.ParentID)
		if !ok {
			break
		}
		i = j
	}
	for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
		path[l], path[r] = path[r], path[l]
	}
	return path, nil
}

// Branches counts the leaves of the tree: entries no other entry names
// as its parent. A linear session has one.
func (f *File) Branches() int {
	// Mark each entry named as a parent (the last of an id, as a walk
	// finds it); the unmarked are leaves.
	named := make([]bool, f.n)
	for i := 0; i < f.n; i++ {
		e := f.At(i)
		if e.ParentID == "" {
			continue
		}
		if i > 0 && f.At(i-1).ID == e.ParentID && f.isLast(i-1) {
			named[i-1] = true
		} else if j, ok := f.index(e.ParentID); ok {
			named[j] = true
		}
	}
	n := 0
	for i := 0; i < f.n; i++ {
		if e := f.At(i); !named[i] && !f.namedElsewhere(i, e.ID, named) {
			n++
		}
	}
	return n
}

// isLast reports whether entry i is the last in the file with its id
// (the one a lookup by id finds).
func (f *File) isLast(i int) bool { return f.At(i).flags&flagShadowed == 0 }

// namedElsewhere reports whether another entry with the same id as entry
// i is named as a parent: entries sharing an id are one node to Pi.
func (f *File) namedElsewhere(i int, id string, named []bool) bool {
	j, ok := f.index(id)
	return ok && j != i && named[j]
}
