//go:build !unix

package watchd

import "os"

// openBatchFlags: systems outside unix have no FIFOs that block an open,
// and readBatch checks the opened file is regular.
const openBatchFlags = os.O_RDONLY
