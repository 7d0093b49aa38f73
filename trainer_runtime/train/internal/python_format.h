// Python's text forms that cloudml-hypertune's file is made of, so the file
// is byte for byte what the Python library writes:
//   PythonFloatRepr(x)   == repr(float(x)) == str(float(x))  ("0.987", "1.0", "1e-05", "inf")
//   PythonJsonString(s)  == json.dumps(s)  (ensure_ascii: non-ASCII as \uXXXX)
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_PYTHON_FORMAT_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_PYTHON_FORMAT_H_

#include <string>
#include <string_view>

namespace trainpkg::train::internal {

// The shortest digits that round-trip, in fixed notation when the decimal
// exponent is in [-4, 16), else as d.ddde+XX (Python's float_repr_style
// 'short').
std::string PythonFloatRepr(double value);

// A JSON string literal with Python's escapes; invalid UTF-8 bytes become
// \ufffd.
std::string PythonJsonString(std::string_view utf8);

}  // namespace trainpkg::train::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_PYTHON_FORMAT_H_
