// Binary form of a Scalar, shared by the embedded knowledge blob and the result cache's facts
// pack: kind, bool, int, float and text, in that order.
#pragma once

#include "analyzer/facts/scalar.hpp"
#include "analyzer/util/binary_io.hpp"

namespace trl {

void put_scalar(bin::Writer& w, const Scalar& s);
// Throws bin::BinaryFormatError for a short input or an unknown kind.
Scalar get_scalar(bin::Reader& r);

}  // namespace trl
