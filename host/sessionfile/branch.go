package sessionfile

import "fmt"

// Leaf is the id of the entry Pi makes the leaf on load: the last entry
// in the file ("" for a file with no entries).
func (f *File) Leaf() string {
	if len(f.Entries) == 0 {
		return ""
	}
	return f.Entries[len(f.Entries)-1].ID
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
	i, ok := f.byID[leaf]
	if !ok {
		return nil, fmt.Errorf("%s: no entry with id %q", f.Name, leaf)
	}
	var path []*Entry
	for {
		e := &f.Entries[i]
		path = append(path, e)
		// A walk longer than the file went round a cycle.
		if e.ParentID == "" || len(path) >= len(f.Entries) {
			break
		}
		j, ok := f.byID[e.ParentID]
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
	parents := make(map[string]bool, len(f.Entries))
	for _, e := range f.Entries {
		if e.ParentID != "" {
			parents[e.ParentID] = true
		}
	}
	n := 0
	for _, e := range f.Entries {
		if !parents[e.ID] {
			n++
		}
	}
	return n
}
