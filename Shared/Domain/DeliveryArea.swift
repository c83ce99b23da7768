import Foundation

/// Where a store delivers: within `radius_m` metres of its location, or inside a polygon of at
/// least three corners (a city's districts rarely make a circle). A polygon may not cross the
/// 180th meridian.
public enum DeliveryArea: Hashable, Sendable, Codable {
    case radius(metres: Int)
    case polygon([GeoPoint])

    /// The largest radius, and the most corners, an area may have.
    public static let maximumRadius = 100_000
    public static let maximumCorners = 200

    enum CodingKeys: String, CodingKey {
        case radiusMetres = "radius_m"
        case polygon
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let radius = try container.decodeIfPresent(Int.self, forKey: .radiusMetres)
        let polygon = try container.decodeIfPresent([GeoPoint].self, forKey: .polygon)
        switch (radius, polygon) {
        case (let radius?, nil): self = .radius(metres: radius)
        case (nil, let polygon?): self = .polygon(polygon)
        default:
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "give radius_m or polygon"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .radius(let metres): try container.encode(metres, forKey: .radiusMetres)
        case .polygon(let corners): try container.encode(corners, forKey: .polygon)
        }
    }

    /// Records what makes the area unusable under `field`.
    public func validate(into problems: inout FieldProblems, field: String) {
        switch self {
        case .radius(let metres):
            if !(1...Self.maximumRadius).contains(metres) {
                problems.add("\(field).radius_m", "must be from 1 to \(Self.maximumRadius)")
            }
        case .polygon(let corners):
            guard (3...Self.maximumCorners).contains(corners.count) else {
                problems.add("\(field).polygon", "must have from 3 to \(Self.maximumCorners) corners")
                return
            }
            var valid = FieldProblems()
            for (index, corner) in corners.enumerated() {
                corner.validate(into: &valid, field: "\(field).polygon[\(index)]")
            }
            for (name, reason) in valid.reasons { problems.add(name, reason) }
            if valid.isEmpty, let box = box(around: corners[0]), box.maxLng - box.minLng >= 180 {
                problems.add("\(field).polygon", "must not span 180 degrees of longitude or more")
            }
        }
    }

    /// Whether `point` is in the area of a store at `centre`.
    public func contains(_ point: GeoPoint, centre: GeoPoint) -> Bool {
        switch self {
        case .radius(let metres): return centre.distance(to: point) <= Double(metres)
        case .polygon(let corners):
            // Crossings of a ray due east from the point (even-odd rule), in the plane of degrees:
            // at a city's scale the edges' curvature is far below a street's width.
            var inside = false
            var previous = corners[corners.count - 1]
            for corner in corners {
                if (corner.lat > point.lat) != (previous.lat > point.lat) {
                    let crossing =
                        corner.lng + (point.lat - corner.lat) / (previous.lat - corner.lat)
                        * (previous.lng - corner.lng)
                    if point.lng < crossing { inside.toggle() }
                }
                previous = corner
            }
            return inside
        }
    }

    /// A rectangle holding the whole area of a store at `centre`; nil for none that can be
    /// indexed (a radius reaching a pole).
    public func box(around centre: GeoPoint) -> GeoBox? {
        switch self {
        case .radius(let metres):
            let latDegrees = Double(metres) / GeoPoint.earthRadius * 180 / .pi
            let (minLat, maxLat) = (centre.lat - latDegrees, centre.lat + latDegrees)
            guard minLat > -90, maxLat < 90 else { return nil }
            // The widest a circle gets is at its latitude farthest from the equator.
            let widest = max(abs(minLat), abs(maxLat)) * .pi / 180
            let lngDegrees = min(180, latDegrees / cos(widest))
            return GeoBox(
                minLat: minLat, maxLat: maxLat, minLng: max(-180, centre.lng - lngDegrees),
                maxLng: min(180, centre.lng + lngDegrees))
        case .polygon(let corners):
            guard let first = corners.first else { return nil }
            var box = GeoBox(minLat: first.lat, maxLat: first.lat, minLng: first.lng, maxLng: first.lng)
            for corner in corners.dropFirst() {
                box.minLat = min(box.minLat, corner.lat)
                box.maxLat = max(box.maxLat, corner.lat)
                box.minLng = min(box.minLng, corner.lng)
                box.maxLng = max(box.maxLng, corner.lng)
            }
            return box
        }
    }
}
