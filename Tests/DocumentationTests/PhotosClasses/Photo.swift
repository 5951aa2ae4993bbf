// Photo.swift — written once by `trove generate`, never overwritten: the app's own code.
import Foundation
import Trove

#if PENDING_LIFE_CYCLE
/// An object of entity 'Photo'. Add your own code here: `trove generate` never overwrites this file.
class Photo: _Photo {
    override func awakeFromInsert() {
        super.awakeFromInsert()
        uploadDate = Date()
    }
}
#else
/// An object of entity 'Photo'. Add your own code here: `trove generate` never overwrites this file.
class Photo: _Photo {}
#endif
