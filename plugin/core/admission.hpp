// Admission of API objects: decoding (types, sizes, depth) for every kind, and
// Tilt's LiveUpdate validation plus this project's stricter rules (A03, L01).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/core/api/api_object.hpp"

namespace liveupdate {

struct FieldError {
    std::string field;
    std::string message;
};

struct AdmissionResult {
    bool accepted = false;
    std::string kind;
    std::string name;
    std::vector<FieldError> errors;
    std::string message;  // every error joined, for humans
    std::optional<api::ApiObject> object;
};

// Never throws for bad input: a rejection carries the reason.
AdmissionResult admit(std::string_view object_json);

// Rules on a decoded LiveUpdate spec (Tilt's Validate, A03, L01).
std::vector<FieldError> validate_live_update(const api::LiveUpdateSpec &spec);

}  // namespace liveupdate
