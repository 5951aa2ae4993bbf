import Trove

/// A photographer. This file is the app's own: the build plugin sees `Photographer.swift` in the
/// target and generates only `_Photographer` for it (Photo and Tag get default classes).
final class Photographer: _Photographer {
    /// The name to show: the name, or the Flickr id of a photographer known only by reference.
    var displayName: String { name ?? id }

    /// The photographer's photos, most viewed first.
    var photosByViews: [Photo] { photos.sorted { ($0.views, $0.id) > ($1.views, $1.id) } }
}
