// libsvm_reader.hpp — a small reader of LIBSVM text files for the C++
// examples (header-only, standard library only).
//
// A LIBSVM file holds one row a line: "label index:value index:value ...",
// with 1-based, strictly increasing feature indices; missing features are 0.
// read_libsvm turns a file into the CSR arrays that svmgo::Trainer::add_csr
// and svmgo::Model::predict_csr take, with 0-based indices (feature "1:" of
// the file is index 0). It refuses a malformed line with "file:line: what
// was wrong" rather than guessing; value checks (NaN, Inf) are the library's.
#ifndef SVMGO_EXAMPLES_LIBSVM_READER_HPP
#define SVMGO_EXAMPLES_LIBSVM_READER_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// A LIBSVM file as CSR arrays with 0-based indices, as svmgo.h takes them.
struct Csr {
    std::vector<double> labels;
    std::vector<std::int64_t> indptr{0};
    std::vector<std::int32_t> indices;
    std::vector<float> values;
    std::size_t num_features = 0; // largest 1-based index in the file

    std::size_t rows() const { return labels.size(); }

    // Row r as a dense row of nf features (missing features are zero).
    std::vector<float> dense_row(std::size_t r, std::size_t nf) const
    {
        std::vector<float> x(nf, 0.0f);
        for (auto k = indptr[r]; k < indptr[r + 1]; k++) {
            if (static_cast<std::size_t>(indices[k]) < nf) {
                x[indices[k]] = values[k];
            }
        }
        return x;
    }
};

// read_libsvm parses "label index:value ..." lines; throws on a bad line.
inline Csr read_libsvm(const std::string &path)
{
    std::ifstream in(path);
    if (!in) {
        throw std::runtime_error(path + ": cannot open");
    }
    Csr d;
    std::string line;
    for (std::size_t line_no = 1; std::getline(in, line); line_no++) {
        std::istringstream fields(line);
        double label;
        if (!(fields >> label)) {
            if (line.find_first_not_of(" \t\r") == std::string::npos) {
                continue; // blank line
            }
            throw std::runtime_error(path + ":" + std::to_string(line_no) + ": bad label");
        }
        long long prev = 0;
        std::string item;
        while (fields >> item) {
            std::size_t colon = item.find(':');
            long long index = 0;
            float value = 0;
            try {
                index = std::stoll(item.substr(0, colon));
                value = std::stof(item.substr(colon + 1));
            } catch (const std::exception &) {
                index = 0;
            }
            if (colon == std::string::npos || index <= prev || index > INT32_MAX) {
                throw std::runtime_error(path + ":" + std::to_string(line_no) + ": bad feature \"" + item + "\"");
            }
            d.indices.push_back(static_cast<std::int32_t>(index - 1)); // the file is 1-based
            d.values.push_back(value);
            d.num_features = std::max(d.num_features, static_cast<std::size_t>(index));
            prev = index;
        }
        d.labels.push_back(label);
        d.indptr.push_back(static_cast<std::int64_t>(d.indices.size()));
    }
    if (d.rows() == 0) {
        throw std::runtime_error(path + ": no rows");
    }
    return d;
}

#endif // SVMGO_EXAMPLES_LIBSVM_READER_HPP
