// Copyright IBM Corp. 2014, 2026
// SPDX-License-Identifier: MPL-2.0
// From internal/unicodeutil/graphemes_v17.go (hcl v2.25.0), so Columns segments as hclsyntax does on this Go; ScanGraphemeClusters unexported.

//go:build go1.27

package hclfmt

import (
	v17 "github.com/apparentlymart/go-textseg/v17/textseg"
)

func scanGraphemeClusters(data []byte, atEOF bool) (int, []byte, error) {
	return v17.ScanGraphemeClusters(data, atEOF)
}
