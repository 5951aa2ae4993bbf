// Photo.swift — written once by `trove generate`, never overwritten: the app's own code.
import Foundation
import Trove

/// An object of entity 'Photo'. Add your own code here: `trove generate` never overwrites this file.
class Photo: _Photo {
    override func awakeFromInsert() {
        super.awakeFromInsert()
        uploadDate = Date()
    }
}
