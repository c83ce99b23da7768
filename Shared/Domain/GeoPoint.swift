import Foundation

/// A place on the Earth, in degrees (WGS 84, as phones report it).
public struct GeoPoint: Hashable, Sendable, Codable {
    public var lat: Double
    public var lng: Double

    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }

    /// The mean radius of the Earth, in metres.
    static let earthRadius = 6_371_008.8

    /// The great-circle distance to `other`, in metres (haversine; within half a percent of the
    /// distance on the ellipsoid, plenty for a delivery radius).
    public func distance(to other: GeoPoint) -> Double {
        let (φ1, φ2) = (lat * .pi / 180, other.lat * .pi / 180)
        let (Δφ, Δλ) = ((other.lat - lat) * .pi / 180, (other.lng - lng) * .pi / 180)
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Self.earthRadius * asin(min(1, a.squareRoot()))
    }

    /// Records a latitude outside −90…90 or a longitude outside −180…180 (or either not a
    /// number) under `field.lat` or `field.lng`.
    public func validate(into problems: inout FieldProblems, field: String) {
        if !lat.isFinite || !(-90...90).contains(lat) { problems.add("\(field).lat", "must be from -90 to 90") }
        if !lng.isFinite || !(-180...180).contains(lng) { problems.add("\(field).lng", "must be from -180 to 180") }
    }
}

/// A rectangle of latitudes and longitudes, which the databases index (SQLite's R*Tree,
/// PostgreSQL's `box` under GiST) to find the delivery areas around a point before the exact test.
public struct GeoBox: Hashable, Sendable {
    public var minLat: Double
    public var maxLat: Double
    public var minLng: Double
    public var maxLng: Double

    public init(minLat: Double, maxLat: Double, minLng: Double, maxLng: Double) {
        self.minLat = minLat
        self.maxLat = maxLat
        self.minLng = minLng
        self.maxLng = maxLng
    }

    public func contains(_ point: GeoPoint) -> Bool {
        (minLat...maxLat).contains(point.lat) && (minLng...maxLng).contains(point.lng)
    }
}
