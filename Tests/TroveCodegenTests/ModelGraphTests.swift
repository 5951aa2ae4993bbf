import Foundation
import Testing
import TroveCodegen
import TroveModel

/// The picture of a model (issue 21, item 6): DOT and Mermaid text, pinned whole for the Photos
/// sample and for a model with a hierarchy, a many-to-many, an ordered to-many with bounds, a
/// relationship that is its own inverse and one without an inverse.
@Suite struct ModelGraphTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let media = #"""
        {"entities":[
         {"name":"Media","abstract":true,"uniqueBy":["id"],"attributes":[{"name":"id","type":"string","optional":false},{"name":"size","type":"integer64","transient":true}],
          "relationships":[{"name":"shelf","destination":"Shelf","inverse":"items"}]},
         {"name":"Image","parent":"Media","attributes":[{"name":"width","type":"integer32"}],"relationships":[{"name":"posterOf","destination":"Video","inverse":"poster"}]},
         {"name":"Video","parent":"Media","attributes":[{"name":"seconds","type":"double"}],"relationships":[{"name":"poster","destination":"Image","inverse":"posterOf","deleteRule":"cascade","optional":false}]},
         {"name":"Shelf","uniqueBy":[["room","row"]],"attributes":[{"name":"room","type":"string"},{"name":"row","type":"integer16"}],
          "relationships":[{"name":"items","destination":"Media","toMany":true,"ordered":true,"inverse":"shelf","maxCount":50},{"name":"neighbours","destination":"Shelf","toMany":true,"inverse":"neighbours"},
           {"name":"labels","destination":"Label","toMany":true,"inverse":"shelves","minCount":1}]},
         {"name":"Label","attributes":[{"name":"text","type":"string"}],"relationships":[{"name":"shelves","destination":"Shelf","toMany":true,"inverse":"labels","deleteRule":"deny"},{"name":"origin","destination":"Shelf"}]}
        ]}
        """#

    @Test func thePhotosSampleAsDOT() throws {
        let model = try Model(contentsOf: Self.packageRoot.appendingPathComponent("Examples/Photos/model.json"))
        #expect(ModelGraph.dot(model) == #"""
        digraph Model {
          rankdir=LR;
          node [shape=plain, fontname="Helvetica", fontsize=11];
          edge [fontname="Helvetica", fontsize=9];
          "Photographer" [label=<<table border="0" cellborder="1" cellspacing="0" cellpadding="3"><tr><td bgcolor="#dce6f2"><b>Photographer</b></td></tr><tr><td align="left"><u>id</u>: string</td></tr><tr><td align="left">name: string?</td></tr><tr><td align="left">location: string?</td></tr><tr><td align="left"><i>unique: id</i></td></tr></table>>];
          "Photo" [label=<<table border="0" cellborder="1" cellspacing="0" cellpadding="3"><tr><td bgcolor="#dce6f2"><b>Photo</b></td></tr><tr><td align="left"><u>id</u>: string</td></tr><tr><td align="left">title: string?</td></tr><tr><td align="left">uploadDate: date?</td></tr><tr><td align="left">views: integer64?</td></tr><tr><td align="left">width: integer32?</td></tr><tr><td align="left">height: integer32?</td></tr><tr><td align="left">latitude: double?</td></tr><tr><td align="left">longitude: double?</td></tr><tr><td align="left">isPublic: boolean?</td></tr><tr><td align="left">url: uri?</td></tr><tr><td align="left"><i>unique: id</i></td></tr></table>>];
          "Tag" [label=<<table border="0" cellborder="1" cellspacing="0" cellpadding="3"><tr><td bgcolor="#dce6f2"><b>Tag</b></td></tr><tr><td align="left"><u>name</u>: string</td></tr><tr><td align="left"><i>unique: name</i></td></tr></table>>];
          "Photographer" -> "Photo" [label="photos (to-many, cascade)\nwhoTook (to-one, nullify)", dir=both, headlabel="*", arrowhead=normalnormal, taillabel="0..1", arrowtail=normal];
          "Photo" -> "Tag" [label="tags (to-many, nullify)\nphotos (to-many, nullify)", dir=both, headlabel="*", arrowhead=normalnormal, taillabel="*", arrowtail=normalnormal];
        }
        """# + "\n")
    }

    @Test func thePhotosSampleAsMermaid() throws {
        let model = try Model(contentsOf: Self.packageRoot.appendingPathComponent("Examples/Photos/model.json"))
        #expect(ModelGraph.mermaid(model) == #"""
        classDiagram
          direction LR
          class Photographer {
            id: string
            name: string?
            location: string?
            unique: id
          }
          class Photo {
            id: string
            title: string?
            uploadDate: date?
            views: integer64?
            width: integer32?
            height: integer32?
            latitude: double?
            longitude: double?
            isPublic: boolean?
            url: uri?
            unique: id
          }
          class Tag {
            name: string
            unique: name
          }
          Photographer "0..1" -- "*" Photo : photos (to-many, cascade) / whoTook (to-one, nullify)
          Photo "*" -- "*" Tag : tags (to-many, nullify) / photos (to-many, nullify)
        """# + "\n")
    }

    @Test func aHierarchyAndManyToManyAsDOT() throws {
        let model = try Model(fileData: Data(Self.media.utf8))
        #expect(ModelGraph.dot(model) == #"""
        digraph Model {
          rankdir=LR;
          node [shape=plain, fontname="Helvetica", fontsize=11];
          edge [fontname="Helvetica", fontsize=9];
          "Media" [label=<<table border="0" cellborder="1" cellspacing="0" cellpadding="3"><tr><td bgcolor="#dce6f2"><b>Media</b> «abstract»</td></tr><tr><td align="left"><u>id</u>: string</td></tr><tr><td align="left">size: integer64? [transient]</td></tr><tr><td align="left"><i>unique: id</i></td></tr></table>>];
          "Image" [label=<<table border="0" cellborder="1" cellspacing="0" cellpadding="3"><tr><td bgcolor="#dce6f2"><b>Image</b></td></tr><tr><td align="left">width: integer32?</td></tr></table>>];
          "Video" [label=<<table border="0" cellborder="1" cellspacing="0" cellpadding="3"><tr><td bgcolor="#dce6f2"><b>Video</b></td></tr><tr><td align="left">seconds: double?</td></tr></table>>];
          "Shelf" [label=<<table border="0" cellborder="1" cellspacing="0" cellpadding="3"><tr><td bgcolor="#dce6f2"><b>Shelf</b></td></tr><tr><td align="left"><u>room</u>: string?</td></tr><tr><td align="left"><u>row</u>: integer16?</td></tr><tr><td align="left"><i>unique: room, row</i></td></tr></table>>];
          "Label" [label=<<table border="0" cellborder="1" cellspacing="0" cellpadding="3"><tr><td bgcolor="#dce6f2"><b>Label</b></td></tr><tr><td align="left">text: string?</td></tr></table>>];
          "Media" -> "Shelf" [label="shelf (to-one, nullify)\nitems (to-many ordered, nullify)", dir=both, headlabel="0..1", arrowhead=normal, taillabel="0..50", arrowtail=normalnormal];
          "Image" -> "Video" [label="posterOf (to-one, nullify)\nposter (to-one, cascade)", dir=both, headlabel="0..1", arrowhead=normal, taillabel="1", arrowtail=normal];
          "Shelf" -> "Shelf" [label="neighbours (to-many, nullify, its own inverse)", dir=both, headlabel="*", arrowhead=normalnormal, taillabel="*", arrowtail=normalnormal];
          "Shelf" -> "Label" [label="labels (to-many, nullify)\nshelves (to-many, deny)", dir=both, headlabel="1..*", arrowhead=normalnormal, taillabel="*", arrowtail=normalnormal];
          "Label" -> "Shelf" [label="origin (to-one, nullify, no inverse)", headlabel="0..1", arrowhead=normal];
          "Image" -> "Media" [arrowhead=empty];
          "Video" -> "Media" [arrowhead=empty];
        }
        """# + "\n")
    }

    @Test func aHierarchyAndManyToManyAsMermaid() throws {
        let model = try Model(fileData: Data(Self.media.utf8))
        #expect(ModelGraph.mermaid(model) == #"""
        classDiagram
          direction LR
          class Media {
            <<abstract>>
            id: string
            size: integer64? [transient]
            unique: id
          }
          class Image {
            width: integer32?
          }
          class Video {
            seconds: double?
          }
          class Shelf {
            room: string?
            row: integer16?
            unique: room, row
          }
          class Label {
            text: string?
          }
          Media "0..50" -- "0..1" Shelf : shelf (to-one, nullify) / items (to-many ordered, nullify)
          Image "1" -- "0..1" Video : posterOf (to-one, nullify) / poster (to-one, cascade)
          Shelf "*" -- "*" Shelf : neighbours (to-many, nullify, its own inverse)
          Shelf "*" -- "1..*" Label : labels (to-many, nullify) / shelves (to-many, deny)
          Label --> "0..1" Shelf : origin (to-one, nullify, no inverse)
          Media <|-- Image
          Media <|-- Video
        """# + "\n")
    }

    @Test func theModelArticleShowsThePhotosSampleAsItIs() throws {
        let model = try Model(contentsOf: Self.packageRoot.appendingPathComponent("Examples/Photos/model.json"))
        let docs = Self.packageRoot.appendingPathComponent("Sources/Trove/Trove.docc")
        let article = try String(decoding: Data(contentsOf: docs.appendingPathComponent("Model.md")), as: UTF8.self)
        #expect(article.contains("```mermaid\n" + ModelGraph.mermaid(model) + "```\n"), "run trove model graph Examples/Photos/model.json --format mermaid")
        // The SVG is Graphviz's drawing of the DOT text: every box and label of it is in there.
        let svg = try String(decoding: Data(contentsOf: docs.appendingPathComponent("Resources/photos-model.svg")), as: UTF8.self)
        for entity in model.entities {
            #expect(svg.contains(">\(entity.name)<"), "run trove model graph Examples/Photos/model.json --format svg")
            for relationship in entity.relationships {
                #expect(svg.contains(">\(relationship.name) (to&#45;"), "\(entity.name).\(relationship.name)")
            }
        }
    }
}
