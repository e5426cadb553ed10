Network 10_P2 {
Layer L10 {
Type: CONV
Dimensions { K: 512, C: 512, Y: 16, X: 16, R: 3, S: 3 }
Dataflow {
TemporalMap(1,1) C;
TemporalMap(3,3) S;
TemporalMap(16,16) Y';
TemporalMap(3,3) R;
SpatialMap(1,1) K;
TemporalMap(15,15) X';
Cluster(4,P);
TemporalMap(1,1) X';
TemporalMap(3,3) R;
SpatialMap(1,1) Y';
TemporalMap(1,1) K;
TemporalMap(3,3) S;
TemporalMap(1,1) C;
}
}
}
