/*
 * svmgo.hpp — an optional, header-only C++17 wrapper of svmgo.h.
 *
 * It adds ownership and exceptions, nothing else: svmgo::Model and
 * svmgo::Trainer own one handle each and free it in their destructor
 * (move-only, like std::unique_ptr); every failed call throws svmgo::Error,
 * a std::runtime_error carrying the status code and the library's message.
 * The rules of svmgo.h hold unchanged: a Model may be used by many threads
 * at once (its methods are const), a Trainer by one thread at a time; input
 * arrays are read during the call only.
 *
 * Link with -lsvmgo as for the C interface.
 */
#ifndef SVMGO_HPP
#define SVMGO_HPP

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "svmgo.h"

namespace svmgo {

/* Error is thrown by every wrapper call that fails. what() reads
 * "SVMGO_E_DIMENSION: <message>"; code() is the svmgo_status value. */
class Error : public std::runtime_error {
public:
    Error(int code, const std::string &message)
        : std::runtime_error(std::string(svmgo_status_name(code)) + ": " + message), code_(code)
    {
    }

    /* The svmgo_status code (negative). */
    int code() const noexcept { return code_; }

    /* The code's enumerator name, e.g. "SVMGO_E_DIMENSION". */
    const char *name() const noexcept { return svmgo_status_name(code_); }

private:
    int code_;
};

namespace detail {

/* check turns a failed status into an Error. The message is read at once:
 * svmgo_last_error is per thread and overwritten by the next failure. */
inline void check(int status)
{
    if (status != SVMGO_OK) {
        throw Error(status, svmgo_last_error());
    }
}

} // namespace detail

/* What a predict call writes per row (svmgo_output). */
enum class Output : int {
    label = SVMGO_OUTPUT_LABEL,
    decision_values = SVMGO_OUTPUT_DECISION_VALUES,
    probability = SVMGO_OUTPUT_PROBABILITY,
};

/* The kind of a model (svmgo_model_kind). */
enum class Kind : int {
    linear_svc = SVMGO_KIND_LINEAR_SVC,
    linear_svr = SVMGO_KIND_LINEAR_SVR,
    kernel_svc = SVMGO_KIND_KERNEL_SVC,
    kernel_svr = SVMGO_KIND_KERNEL_SVR,
    one_class = SVMGO_KIND_ONE_CLASS,
};

/* The library's version string, e.g. "0.3.0". */
inline std::string version_string() { return svmgo_version_string(); }

/* A model handle: loaded, trained, or watching a directory. Move-only; the
 * destructor frees the handle (and stops watching). All methods are const
 * and thread-safe, as the model is immutable. */
class Model {
public:
    /* An empty Model, holding no handle (as after a move): every call on
     * it throws svmgo::Error. */
    Model() noexcept = default;

    /* Takes ownership of a handle from the C interface. */
    explicit Model(svmgo_model *handle) noexcept : handle_(handle) {}

    Model(Model &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    Model &operator=(Model &&other) noexcept
    {
        if (this != &other) {
            reset(std::exchange(other.handle_, nullptr));
        }
        return *this;
    }
    Model(const Model &) = delete;
    Model &operator=(const Model &) = delete;
    ~Model() { reset(); }

    /* Loads a model file (svmgo_model_load). */
    static Model load(const std::string &path)
    {
        svmgo_model *h = nullptr;
        detail::check(svmgo_model_load(path.c_str(), &h));
        return Model(h);
    }

    /* Loads a model from the bytes of a model file (svmgo_model_load_buffer). */
    static Model load_buffer(const void *data, std::size_t size)
    {
        svmgo_model *h = nullptr;
        detail::check(svmgo_model_load_buffer(data, size, &h));
        return Model(h);
    }

    /* Follows the newest valid model in dir (svmgo_model_watch). Until a
     * first version has loaded, predictions throw SVMGO_E_NO_MODEL. */
    static Model watch(const std::string &dir)
    {
        svmgo_model *h = nullptr;
        detail::check(svmgo_model_watch(dir.c_str(), &h));
        return Model(h);
    }

    /* Writes the model to path atomically. */
    void save(const std::string &path) const { detail::check(svmgo_model_save(handle_, path.c_str())); }

    /* The bytes of the model's file, as save writes them
     * (svmgo_model_save_buffer); load_buffer reads them back. */
    std::vector<unsigned char> save_buffer() const
    {
        for (;;) {
            std::size_t size = 0;
            int rc = svmgo_model_save_buffer(handle_, nullptr, 0, &size);
            if (rc != SVMGO_E_CAPACITY) {
                detail::check(rc);
            }
            std::vector<unsigned char> out(size);
            rc = svmgo_model_save_buffer(handle_, out.data(), out.size(), &size);
            if (rc == SVMGO_E_CAPACITY) {
                continue; // a watched model swapped in a larger version meanwhile
            }
            detail::check(rc);
            out.resize(size);
            return out;
        }
    }

    /* For a watched model: why the newest file newer than the one in use
     * was skipped (svmgo_model_watch_skip); version 0 and an empty reason
     * when none was. Throws SVMGO_E_UNSUPPORTED for a model that does not
     * watch. */
    std::uint64_t skipped(std::string &reason) const
    {
        std::uint64_t version = 0;
        std::size_t length = 0;
        detail::check(svmgo_model_watch_skip(handle_, &version, nullptr, 0, &length));
        std::vector<char> buf(length + 1);
        detail::check(svmgo_model_watch_skip(handle_, &version, buf.data(), buf.size(), &length));
        reason.assign(buf.data());
        return version;
    }

    /* Publishes the model into dir as the next version and returns it. */
    std::uint64_t publish(const std::string &dir) const
    {
        std::uint64_t version = 0;
        detail::check(svmgo_model_publish(handle_, dir.c_str(), &version));
        return version;
    }

    /* One property (svmgo_model_property). */
    std::int64_t get(svmgo_model_property property) const
    {
        std::int64_t value = 0;
        detail::check(svmgo_model_get(handle_, property, &value));
        return value;
    }

    Kind kind() const { return static_cast<Kind>(get(SVMGO_MODEL_KIND)); }
    std::size_t num_features() const { return static_cast<std::size_t>(get(SVMGO_MODEL_NUM_FEATURES)); }
    std::size_t num_classes() const { return static_cast<std::size_t>(get(SVMGO_MODEL_NUM_CLASSES)); }
    std::size_t num_decision_values() const
    {
        return static_cast<std::size_t>(get(SVMGO_MODEL_NUM_DECISION_VALUES));
    }
    bool quantized() const { return get(SVMGO_MODEL_QUANTIZED) != 0; }
    bool has_probability() const { return get(SVMGO_MODEL_HAS_PROBABILITY) != 0; }
    /* The version in use by a watched model; 0 for any other model. */
    std::uint64_t version() const { return static_cast<std::uint64_t>(get(SVMGO_MODEL_VERSION)); }

    /* The class labels in decision-value order; empty for regression. */
    std::vector<std::int32_t> labels() const
    {
        // At least one element, so that dst is never NULL (regression: none).
        std::vector<std::int32_t> out(num_classes() + 1);
        std::size_t count = 0;
        detail::check(svmgo_model_labels(handle_, out.data(), out.size(), &count));
        out.resize(count);
        return out;
    }

    /* ---- Prediction into caller-owned arrays (no allocation) ---- */

    /* Dense row-major rows: num_rows rows of num_features values; writes
     * the chosen output per row into dst (dst_cap values). */
    void predict(double *dst, std::size_t dst_cap, const float *x, std::size_t num_rows, std::size_t num_features,
                 Output output = Output::label) const
    {
        detail::check(svmgo_predict_dense_f32(handle_, static_cast<int>(output), dst, dst_cap, x, num_rows,
                                              num_features));
    }
    void predict(double *dst, std::size_t dst_cap, const double *x, std::size_t num_rows,
                 std::size_t num_features, Output output = Output::label) const
    {
        detail::check(svmgo_predict_dense_f64(handle_, static_cast<int>(output), dst, dst_cap, x, num_rows,
                                              num_features));
    }

    /* CSR rows with 0-based indices (see svmgo.h: indices past
     * num_features() are ignored by linear models and counted by the RBF
     * kernel in ||x - sv||^2, as in LIBSVM). */
    void predict_csr(double *dst, std::size_t dst_cap, const std::int64_t *indptr, const std::int32_t *indices,
                     const float *values, std::size_t num_rows, Output output = Output::label) const
    {
        detail::check(svmgo_predict_csr_f32(handle_, static_cast<int>(output), dst, dst_cap, indptr, indices,
                                            values, num_rows));
    }
    void predict_csr(double *dst, std::size_t dst_cap, const std::int64_t *indptr, const std::int32_t *indices,
                     const double *values, std::size_t num_rows, Output output = Output::label) const
    {
        detail::check(svmgo_predict_csr_f64(handle_, static_cast<int>(output), dst, dst_cap, indptr, indices,
                                            values, num_rows));
    }

    /* ---- Convenience forms that return a std::vector ---- */

    /* The label (or regression value) of one dense row of size values. */
    template <class T> double predict_one(const T *x, std::size_t size) const
    {
        double label = 0;
        predict(&label, 1, x, 1, size);
        return label;
    }

    /* The output of the rows of a row-major matrix whose row width is the
     * model's number of features (T is float or double): one label a row,
     * num_decision_values() decision values or num_classes() probabilities
     * (Output::probability: models trained with -b 1), row after row. */
    template <class T> std::vector<double> predict(const std::vector<T> &x, Output output = Output::label) const
    {
        const std::size_t nf = num_features();
        if (nf == 0 || x.size() % nf != 0) {
            throw Error(SVMGO_E_DIMENSION, std::to_string(x.size()) + " values are not whole rows of " +
                                               std::to_string(nf) + " features");
        }
        const std::size_t rows = x.size() / nf;
        std::vector<double> out(rows * per_row(output));
        predict(out.data(), out.size(), x.data(), rows, nf, output);
        return out;
    }

    /* The output of CSR rows (indptr.size() - 1 rows; T is float or
     * double), laid out as for dense rows. */
    template <class T>
    std::vector<double> predict_csr(const std::vector<std::int64_t> &indptr, const std::vector<std::int32_t> &indices,
                                    const std::vector<T> &values, Output output = Output::label) const
    {
        if (indptr.empty() || indices.size() != values.size()) {
            throw Error(SVMGO_E_INVALID_ARGUMENT, "CSR arrays: need indptr.size() >= 1 and indices.size() == "
                                                  "values.size()");
        }
        const std::size_t rows = indptr.size() - 1;
        std::vector<double> out(rows * per_row(output));
        predict_csr(out.data(), out.size(), indptr.data(), indices.data(), values.data(), rows, output);
        return out;
    }

    /* Decision values, num_decision_values() per row, row after row. */
    template <class T> std::vector<double> decision_function(const std::vector<T> &x) const
    {
        return predict(x, Output::decision_values);
    }

    /* ---- The handle ---- */

    /* The C handle, still owned by this Model. */
    svmgo_model *handle() const noexcept { return handle_; }

    /* Gives up ownership: the caller frees the returned handle. */
    svmgo_model *release() noexcept { return std::exchange(handle_, nullptr); }

    /* Frees the handle held (if any) and takes h instead. */
    void reset(svmgo_model *h = nullptr) noexcept
    {
        svmgo_model_free(std::exchange(handle_, h)); // only fails for a bad handle, which a Model never holds
    }

    explicit operator bool() const noexcept { return handle_ != nullptr; }

private:
    std::size_t per_row(Output output) const
    {
        switch (output) {
        case Output::label:
            return 1;
        case Output::decision_values:
            return num_decision_values();
        case Output::probability:
            return num_classes();
        }
        return 1;
    }

    svmgo_model *handle_ = nullptr;
};

/* A trainer (svmgo_trainer), linear or kernel: a fixed-capacity set of rows
 * whose fits are warm-started from the previous fit. Move-only; use it from
 * one thread at a time. */
class Trainer {
public:
    /* options: LIBLINEAR's train options ("-s 1 -B 1"), or svm-train's
     * for a kernel trainer ("-t 2 -c 4 -b 1"; a leading "-syntax kernel"
     * or any of -t -g -d -r -m -h selects them; -b alone names no family
     * and is refused, see svmgo_trainer_new). capacity_nonzeros > 0 stores
     * rows sparse; 0 stores them dense. */
    Trainer(const std::string &options, std::size_t capacity_rows, std::size_t num_features,
            std::size_t capacity_nonzeros = 0)
        : num_features_(num_features)
    {
        detail::check(svmgo_trainer_new(options.c_str(), capacity_rows, num_features, capacity_nonzeros, &handle_));
    }

    Trainer(Trainer &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)), num_features_(other.num_features_)
    {
    }
    Trainer &operator=(Trainer &&other) noexcept
    {
        if (this != &other) {
            svmgo_trainer_free(std::exchange(handle_, std::exchange(other.handle_, nullptr)));
            num_features_ = other.num_features_;
        }
        return *this;
    }
    Trainer(const Trainer &) = delete;
    Trainer &operator=(const Trainer &) = delete;
    ~Trainer() { svmgo_trainer_free(handle_); }

    /* Appends num_rows dense rows with their labels; all or none. */
    void add_dense(const double *labels, const float *x, std::size_t num_rows, std::size_t num_features)
    {
        detail::check(svmgo_trainer_add_dense_f32(handle_, labels, x, num_rows, num_features));
    }
    void add_dense(const double *labels, const double *x, std::size_t num_rows, std::size_t num_features)
    {
        detail::check(svmgo_trainer_add_dense_f64(handle_, labels, x, num_rows, num_features));
    }
    /* The rows of a row-major matrix of labels.size() rows of
     * num_features() values (T: float or double). */
    template <class T> void add_dense(const std::vector<double> &labels, const std::vector<T> &x)
    {
        if (x.size() != labels.size() * num_features_) {
            throw Error(SVMGO_E_DIMENSION, std::to_string(x.size()) + " values are not " +
                                               std::to_string(labels.size()) + " rows of " +
                                               std::to_string(num_features_) + " features");
        }
        add_dense(labels.data(), x.data(), labels.size(), num_features_);
    }

    /* Appends num_rows CSR rows (0-based indices) with their labels. */
    void add_csr(const double *labels, const std::int64_t *indptr, const std::int32_t *indices, const float *values,
                 std::size_t num_rows)
    {
        detail::check(svmgo_trainer_add_csr_f32(handle_, labels, indptr, indices, values, num_rows));
    }
    void add_csr(const double *labels, const std::int64_t *indptr, const std::int32_t *indices,
                 const double *values, std::size_t num_rows)
    {
        detail::check(svmgo_trainer_add_csr_f64(handle_, labels, indptr, indices, values, num_rows));
    }
    template <class T>
    void add_csr(const std::vector<double> &labels, const std::vector<std::int64_t> &indptr,
                 const std::vector<std::int32_t> &indices, const std::vector<T> &values)
    {
        if (indptr.size() != labels.size() + 1 || indices.size() != values.size()) {
            throw Error(SVMGO_E_INVALID_ARGUMENT, "CSR arrays: need indptr.size() == labels.size() + 1 and "
                                                  "indices.size() == values.size()");
        }
        add_csr(labels.data(), indptr.data(), indices.data(), values.data(), labels.size());
    }

    /* Removes rows by position (0-based, among the rows held). */
    void remove(const std::size_t *rows, std::size_t count)
    {
        detail::check(svmgo_trainer_remove(handle_, rows, count));
    }
    void remove(const std::vector<std::size_t> &rows) { remove(rows.data(), rows.size()); }

    /* The batch number of the last add that added rows (0 before any). */
    std::uint64_t last_batch() const
    {
        std::uint64_t b = 0;
        detail::check(svmgo_trainer_last_batch(handle_, &b));
        return b;
    }

    /* Forgets batch number batch (last_batch() after its add): removes its
     * rows still held and returns how many (svmgo_trainer_forget). */
    std::size_t forget(std::uint64_t batch)
    {
        std::size_t n = 0;
        detail::check(svmgo_trainer_forget(handle_, batch, &n));
        return n;
    }

    /* The number of rows held. */
    std::size_t num_rows() const
    {
        std::size_t n = 0;
        detail::check(svmgo_trainer_num_rows(handle_, &n));
        return n;
    }

    /* The features each row has (as given to the constructor). */
    std::size_t num_features() const noexcept { return num_features_; }

    /* Trains on the rows held (warm start) and returns the new model. */
    Model fit()
    {
        svmgo_model *h = nullptr;
        detail::check(svmgo_trainer_fit(handle_, &h));
        return Model(h);
    }

    /* What the last fit reported (svmgo_trainer_fit_info). */
    svmgo_fit_info fit_info() const
    {
        svmgo_fit_info info{};
        detail::check(svmgo_trainer_fit_info(handle_, &info));
        return info;
    }

    /* The C handle, still owned by this Trainer. */
    svmgo_trainer *handle() const noexcept { return handle_; }

private:
    svmgo_trainer *handle_ = nullptr;
    std::size_t num_features_ = 0;
};

} // namespace svmgo

#endif /* SVMGO_HPP */
