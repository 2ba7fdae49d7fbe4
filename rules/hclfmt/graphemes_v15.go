// Copyright IBM Corp. 2014, 2026
// SPDX-License-Identifier: MPL-2.0
// From internal/unicodeutil/graphemes_v15.go (hcl v2.25.0), so Columns segments as hclsyntax does on this Go; ScanGraphemeClusters unexported.

//go:build !go1.27
// +build !go1.27

package hclfmt

import (
	v15 "github.com/apparentlymart/go-textseg/v15/textseg"
)

func scanGraphemeClusters(data []byte, atEOF bool) (int, []byte, error) {
	return v15.ScanGraphemeClusters(data, atEOF)
}
