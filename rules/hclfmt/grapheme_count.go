// Copyright IBM Corp. 2014, 2026
// SPDX-License-Identifier: MPL-2.0
// From internal/unicodeutil/grapheme_count.go (hcl v2.25.0), which hclwrite/tokens.go calls and an outside package cannot import; GraphemeCount unexported.

package hclfmt

import (
	"bufio"
	"bytes"
)

func graphemeCount(buf []byte) (int, error) {
	scanner := bufio.NewScanner(bytes.NewReader(buf))
	scanner.Split(scanGraphemeClusters)
	var ret int
	for scanner.Scan() {
		ret++
	}
	return ret, scanner.Err()
}
