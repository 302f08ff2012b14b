package main

// #include "capi.h"
import "C"

import "strconv"

// The library's version; a test holds svmgo.h's SVMGO_VERSION_* macros to
// these.
const (
	versionMajor  = 0
	versionMinor  = 6
	versionPatch  = 0
	versionNumber = versionMajor*10000 + versionMinor*100 + versionPatch
)

var versionString = strconv.Itoa(versionMajor) + "." + strconv.Itoa(versionMinor) + "." + strconv.Itoa(versionPatch)

// versionCString is allocated once, when the library loads, and never
// freed: the header promises a static string.
var versionCString = C.CString(versionString)

//export svmgo_version_number
func svmgo_version_number() C.unsigned {
	return versionNumber
}

//export svmgo_version_string
func svmgo_version_string() C.capi_cstr {
	return versionCString
}
