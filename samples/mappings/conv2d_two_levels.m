// A CONV2D in two levels for the classroom's 8 PEs (samples/accelerators/classroom_8pe.json): four clusters
// of two PEs. Level 0 gives each cluster one filter (SpatialMap(1,1) K) and walks the channels and a
// 3-column input window; inside a cluster the two PEs take neighbouring output rows (SpatialMap(1,1) Y').
// Open samples/projects/conv2d_classroom.json, then File > Animate a MAESTRO Mapping... on this file.
Network Classroom {
  Layer CONV2D {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 6, X: 6 }
    Dataflow {
      SpatialMap(1,1) K;
      TemporalMap(1,1) C;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
      Cluster(2,P);
      SpatialMap(1,1) Y';
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
