#include "common/update_step/container_update.hpp"

#include "common/json_fields.hpp"
#include "common/update_step/field_walk.hpp"

namespace liveupdate::update_step {
namespace json = boost::json;

using field_walk::Decoder;
using field_walk::Encoder;

json::object encode(const ContainerUpdate &update) {
    json::object out;
    Encoder encoder(out);
    ContainerUpdate::fields(update, encoder);
    return out;
}

ContainerUpdate decode_update(const json::value &value, const std::string &path) {
    if (!value.is_object()) throw common::DecodeError(path, "expected object");
    ContainerUpdate update;
    Decoder decoder(value.get_object(), path);
    ContainerUpdate::fields(update, decoder);
    if (update.via.empty()) throw common::DecodeError(common::child(path, "via"), "names no updater");
    return update;
}

}  // namespace liveupdate::update_step
